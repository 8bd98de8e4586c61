import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ApiKeyParams, ApiKeyResponse, ApiKeyUsageQuery, ApiKeyUsageResponse, CreateApiKeyRequest, CreatedApiKeyResponse, EmptyResponse,
  ListApiKeysResponse, PageQuery, ReportLeakedKeyRequest, RotateApiKeyRequest, UpdateApiKeyRequest,
} from '@maqam/contract';
import { userOf } from '../http/credentials.ts';
import type { DeveloperService } from './developer.service.ts';

export interface DeveloperRouteDeps {
  developer: DeveloperService;
  /** reportLeaked's own per-address limit: it takes no credential. */
  leakReportLimiter: onRequestHookHandler | undefined;
}

const TAGS = ['DeveloperService'];
/** What the routes declare of themselves (http/edge.ts wires it). */
const DEVELOPER = { access: 'developer' } as const;
// A param followed by `:verb` needs a pattern that stops at the colon (find-my-way).
const KEY = '/v1/developer/keys/:key_id([^:/]+)';
const NOT_YOURS = ' Another developer\'s key is the same 404 as an unknown id.';

/**
 * DeveloperService (contract section 16): a developer (the `developer` role,
 * a token with the `developer` scope) manages keys of their own; anyone
 * holding a key may report it leaked.
 */
export async function developerRoutes(scope: FastifyInstance, { developer, leakReportLimiter }: DeveloperRouteDeps): Promise<void> {
  const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
  // Keys and their secrets are nobody's to keep.
  scope.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  routes.post('/v1/developer/keys', {
    schema: {
      operationId: 'CreateApiKey', tags: TAGS,
      summary: 'Makes an API key for the signed-in developer.',
      description: 'The answer\'s `secret` is the whole key, `mk_<id>_<secret><checksum>`: shown this once. Scopes default to all three; the key\'s own limit is at most the server\'s.',
      body: CreateApiKeyRequest,
      response: { 201: CreatedApiKeyResponse },
    },
    config: DEVELOPER,
  }, async (request, reply) => reply.code(201).send(await developer.create(userOf(request), request.body)));

  routes.get('/v1/developer/keys', {
    schema: {
      operationId: 'ListApiKeys', tags: TAGS,
      summary: 'The signed-in developer\'s API keys, oldest first.',
      description: 'Revoked and expired ones too, with their status; never a secret. Page tokens are bound to the developer.',
      querystring: PageQuery,
      response: { 200: ListApiKeysResponse },
    },
    config: DEVELOPER,
  }, async (request) => developer.list(userOf(request), request.query as Record<string, unknown>));

  routes.get(KEY, {
    schema: { operationId: 'GetApiKey', tags: TAGS, summary: 'One of the developer\'s keys.', description: NOT_YOURS.trim(), params: ApiKeyParams, response: { 200: ApiKeyResponse } },
    config: DEVELOPER,
  }, async (request) => ({ apiKey: await developer.get(userOf(request), request.params.key_id) }));

  routes.patch(KEY, {
    schema: {
      operationId: 'UpdateApiKey', tags: TAGS,
      summary: 'Renames a key or changes its own rate limit.',
      description: 'What is left out stays.' + NOT_YOURS,
      params: ApiKeyParams, body: UpdateApiKeyRequest, response: { 200: ApiKeyResponse },
    },
    config: DEVELOPER,
  }, async (request) => ({ apiKey: await developer.update(userOf(request), request.params.key_id, request.body) }));

  routes.post(`${KEY}::rotate`, {
    schema: {
      operationId: 'RotateApiKey', tags: TAGS,
      summary: 'Makes a new key in place of this one; the old secret works until the grace ends.',
      description: 'Answers as CreateApiKey does. Requests with the old key during its grace carry `Deprecation` and `Sunset`. A revoked, expired or already rotated key is a 409.' + NOT_YOURS,
      params: ApiKeyParams, body: RotateApiKeyRequest, response: { 200: CreatedApiKeyResponse },
    },
    config: DEVELOPER,
  }, async (request) => developer.rotate(userOf(request), request.params.key_id, request.body.graceSeconds));

  routes.post(`${KEY}::revoke`, {
    schema: {
      operationId: 'RevokeApiKey', tags: TAGS,
      summary: 'Ends a key at once, on every node.',
      description: 'A key already revoked is a 409.' + NOT_YOURS,
      params: ApiKeyParams, response: { 200: ApiKeyResponse },
    },
    config: DEVELOPER,
  }, async (request) => ({ apiKey: await developer.revoke(userOf(request), request.params.key_id) }));

  routes.get(`${KEY}/usage`, {
    schema: {
      operationId: 'GetApiKeyUsage', tags: TAGS,
      summary: 'A key\'s calls per day and operation: answered, 4xx, 429.',
      description: 'Counted in memory on each node and written at most once a minute; the answer adds the counts not yet written (this node\'s, and with Redis every node\'s within a second).' + NOT_YOURS,
      params: ApiKeyParams, querystring: ApiKeyUsageQuery, response: { 200: ApiKeyUsageResponse },
    },
    config: DEVELOPER,
  }, async (request) => developer.usage(userOf(request), request.params.key_id, request.query));

  routes.post('/v1/developer/keys::reportLeaked', {
    schema: {
      operationId: 'ReportLeakedApiKey', tags: TAGS,
      summary: 'Reports a key found where it should not be: a real one is revoked.',
      description: 'Takes no credential (whoever holds a key may kill it) and always answers 202, so it tells nothing about the key. Limited per address.',
      body: ReportLeakedKeyRequest,
      response: { 202: EmptyResponse },
    },
    config: { access: 'public' },
    ...(leakReportLimiter && { onRequest: [leakReportLimiter] }),
  }, async (request, reply) => {
    await developer.reportLeaked(request.body.key);
    return reply.code(202).send({});
  });
}
