// What the streaming benches (run.ts: music segments, video.ts: video segments) set up alike: a listener's
// access token with the stream scope, and servers started on core 0, each at a port of its own.
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createClientsService, createUsersService, type Storage } from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';
import { startPinned, waitReady } from '../lib/load.ts';

const REDIRECT = 'https://bench.example/cb';

/** A new user's access token with the read and stream scopes, good for six hours, issued as the sign-in issues one. */
export async function streamToken(storage: Storage, username: string): Promise<string> {
  const user = await createUsersService(storage.db).create(username, 'bench-password');
  const client = await createClientsService(storage.db).create({ name: 'bench', redirectUris: [REDIRECT], scopes: ['read', 'stream'] });
  const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 6 * 3600, codeTtlSeconds: 600 });
  const verifier = randomBytes(32).toString('base64url');
  const code = await tokens.issueCode({ clientId: client.clientId, userId: user.id, scope: 'read stream', redirectUri: REDIRECT, codeChallenge: createHash('sha256').update(verifier).digest('base64url') });
  return (await tokens.exchangeCode({ code: code!, clientId: client.clientId, redirectUri: REDIRECT, codeVerifier: verifier })).access_token;
}

/** Starts processes with `env` on core 0, each at a port of its own, kept in `children` to stop at the end. */
export function serverStarter(env: Record<string, string | undefined>, children: ChildProcess[]) {
  /** One process, ready once `probe` answers at its base URL. */
  return async function started(command: string[], extra: Record<string, string>, probe: (base: string) => Promise<Response>): Promise<{ base: string; pid: number }> {
    const port = 19_000 + Math.floor(Math.random() * 1000);
    const child = startPinned(command, { ...env, ...extra, PORT: String(port) });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    await waitReady(child, () => probe(base));
    return { base, pid: child.pid! };
  };
}
