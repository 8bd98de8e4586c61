import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createClientsService, createUsersService } from '@maqam/server';
import type { TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';

/** A user with the developer role signed in with the developer scope; `granted: false` leaves the role out. */
export async function developer(server: TestServer, options: { granted?: boolean } = {}) {
  const users = createUsersService(server.storage.db);
  const user = await users.create(`dev${randomBytes(4).toString('hex')}`, 'صوت الموسيقى 123');
  if (options.granted !== false) await users.setRole(user.username, 'developer', true);
  const client = await createClientsService(server.storage.db).create({ name: 'Dev Portal', redirectUris: [REDIRECT], scopes: ['read', 'developer'] });
  const token = (await tokensFor(server, client.clientId, user.username, 'developer')).access_token;
  return { user, token, call: asDeveloper(server.app, token) };
}

/** A call to the API as the holder of `token`, in English. */
export function asDeveloper(app: FastifyInstance, token: string) {
  return (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, 'accept-language': 'en', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

/** A catalog read with an API key, on any node. */
export const withKey = (app: FastifyInstance, key: string, url = '/v1/music/songs/song-ar') =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': key, 'accept-language': 'en' } });
