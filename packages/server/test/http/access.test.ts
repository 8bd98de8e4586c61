import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES, type Scope } from '@maqam/contract';
import { createClientsService, createUsersService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';

type Security = Record<string, string[]>[];
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly security: Security | undefined;
}

const REFUSALS = new Set([401, 403]);

/**
 * Issue 52: routes declare their access and one edge wires it, so what the
 * OpenAPI document says an operation needs must be what the server enforces.
 * Every operation of the document is called without a credential, with an
 * API key, and with a token of each scope alone: it refuses (401 or 403)
 * exactly those the document does not admit, and admits the others
 * (whatever it then answers: a 400 of a body left empty is admission).
 */
describe('the documented security of every operation is the enforced one', () => {
  let server: TestServer;
  const tokens = new Map<Scope, string>();
  let operations: Operation[];

  beforeAll(async () => {
    server = await startTestServer(dialects[0]!, { MAQAM_RATE_LIMIT: '0' });
    const user = await createUsersService(server.storage.db).create('gatekeeper', 'صوت الموسيقى 123');
    // The developer scope admits only users with the developer role (contract section 16), which a document cannot say.
    await createUsersService(server.storage.db).setRole(user.username, 'developer', true);
    const client = await createClientsService(server.storage.db).create({ name: 'Access', redirectUris: [REDIRECT], scopes: [...SCOPE_NAMES] });
    for (const scope of SCOPE_NAMES) tokens.set(scope, (await tokensFor(server, client.clientId, user.username, scope)).access_token);
    const document = (await server.app.inject('/v1/openapi.json')).json() as { paths: Record<string, Record<string, { operationId: string; security?: Security }>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operationId: operation.operationId, security: operation.security })));
  });
  afterAll(async () => server?.close());

  /** The operation called with these headers, its path parameters filled and an empty JSON body where it takes one. */
  const call = (operation: Operation, headers: Record<string, string>) => server.app.inject({
    method: operation.method as 'GET',
    url: operation.path.replace(/\{[^}]+\}/g, 'x'),
    headers: { ...headers, ...(['POST', 'PUT', 'PATCH'].includes(operation.method) ? { 'content-type': 'application/json' } : {}) },
    ...(['POST', 'PUT', 'PATCH'].includes(operation.method) ? { payload: '{}' } : {}),
  });

  const admits = (security: Security, scheme: 'oauth2' | 'apiKeyAuth', scope?: Scope) =>
    security.some((requirement) => scheme in requirement && (scheme === 'apiKeyAuth' || requirement[scheme]!.every((needed) => needed === scope)));

  it('finds the operations that declare a credential', () => {
    const secured = operations.filter((operation) => operation.security !== undefined && operation.security.length > 0);
    expect(secured.map((operation) => operation.operationId)).toEqual(expect.arrayContaining(['BatchGetSongs', 'SaveItems', 'AddPlaylistItems', 'AcquireMusicStream', 'TokenInfo', 'Search']));
  });

  it('refuses exactly what the document does not admit, for every operation and credential', async () => {
    const mismatches: string[] = [];
    for (const operation of operations) {
      const security = operation.security ?? [];
      if (security.length === 0) continue;
      const tried: [string, Record<string, string>, boolean][] = [
        ['no credential', {}, false],
        ['an API key', { 'x-api-key': server.apiKey }, admits(security, 'apiKeyAuth')],
        ...SCOPE_NAMES.map((scope): [string, Record<string, string>, boolean] =>
          [`a token of ${scope}`, { authorization: `Bearer ${tokens.get(scope)}` }, admits(security, 'oauth2', scope)]),
      ];
      for (const [what, headers, admitted] of tried) {
        const res = await call(operation, headers);
        if (REFUSALS.has(res.statusCode) === admitted) mismatches.push(`${operation.operationId} with ${what}: ${res.statusCode} (${admitted ? 'admitted' : 'refused'} by the document)`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
