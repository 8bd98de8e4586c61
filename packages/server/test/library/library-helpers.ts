import { randomBytes } from 'node:crypto';
import { createClientsService, createUsersService } from '@maqam/server';
import type { TestServer } from '../harness.ts';
import { REDIRECT, tokensFor } from '../oauth/oauth-helpers.ts';

/** A user signed in to a client that may read and write their library, and one that may only read it. */
export async function libraryUser(server: TestServer) {
  const users = createUsersService(server.storage.db);
  const clients = createClientsService(server.storage.db);
  const user = await users.create(`listener${randomBytes(4).toString('hex')}`, 'صوت الموسيقى 123');
  const app = await clients.create({ name: 'Library App', redirectUris: [REDIRECT], scopes: ['read', 'stream', 'write'] });
  const write = (await tokensFor(server, app.clientId, user.username, 'read write')).access_token;
  const read = (await tokensFor(server, app.clientId, user.username, 'read')).access_token;
  const writeOnly = (await tokensFor(server, app.clientId, user.username, 'write')).access_token;
  return { user, clientId: app.clientId, write, read, writeOnly };
}

/** A call to the API as the holder of `token`, in English unless told. */
export function asUser(server: TestServer, token: string) {
  return (method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, 'accept-language': 'en', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
}

export const songIds = (...values: string[]) => values.map((value) => ({ value }));
