import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/database.ts';
import { createClientsRepo } from './clients.repo.ts';

import { SCOPE_NAMES, type Scope } from '@maqam/contract';

export interface OAuthClient {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly Scope[];
}

export class ClientInputError extends Error {
  override name = 'ClientInputError';
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A redirect URI a public client may register: absolute, without a fragment
 * (RFC 6749 §3.1.2), and either https, http on a loopback address for native
 * apps (RFC 8252 §7.3), or a private-use scheme with a dot (RFC 8252 §7.1).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? null : 'must be https, or http on a loopback address';
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return null;
  return 'must be https, http on a loopback address, or a private-use scheme such as com.example.app:';
}

function newClientId(): string {
  return `mc_${randomBytes(16).toString('hex')}`;
}

export function createClientsService(db: Db, clock: () => number = Date.now) {
  const repo = createClientsRepo(db);
  const toClient = (row: { id: string; name: string; redirect_uris: string; scopes: string }): OAuthClient => ({
    clientId: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
  });

  return {
    /** `clientId` is for well-known clients (the demo); others get a random id. */
    async create(options: { name: string; redirectUris: readonly string[]; scopes?: readonly string[]; clientId?: string }): Promise<OAuthClient> {
      const name = options.name.trim();
      if (name === '' || name.length > 200) throw new ClientInputError('a client name is 1 to 200 characters');
      if (options.redirectUris.length === 0) throw new ClientInputError('a client needs at least one redirect URI');
      for (const uri of options.redirectUris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new ClientInputError(`redirect URI "${uri}" ${problem}`);
      }
      const scopes = [...new Set(options.scopes ?? ['read'])];
      const unknown = scopes.filter((s) => !(SCOPE_NAMES as readonly string[]).includes(s));
      if (unknown.length > 0) throw new ClientInputError(`unknown scope(s) ${unknown.join(', ')}; scopes are ${SCOPE_NAMES.join(', ')}`);
      if (scopes.length === 0) throw new ClientInputError(`a client needs at least one scope of ${SCOPE_NAMES.join(', ')}`);
      if (options.clientId !== undefined && !/^[A-Za-z0-9._-]{3,64}$/.test(options.clientId)) {
        throw new ClientInputError('a client id is 3 to 64 letters, digits, ".", "-" or "_"');
      }
      const row = {
        id: options.clientId ?? newClientId(),
        name,
        redirect_uris: JSON.stringify([...new Set(options.redirectUris)]),
        scopes: scopes.join(' '),
        created_at: clock(),
      };
      await repo.insert(row);
      return toClient(row);
    },

    async list(): Promise<OAuthClient[]> {
      return (await repo.list()).map(toClient);
    },

    /** Registers one more redirect URI for a client (checked as at creation); true if it was new. */
    async addRedirectUri(clientId: string, uri: string): Promise<boolean> {
      const problem = redirectUriProblem(uri);
      if (problem) throw new ClientInputError(`redirect URI "${uri}" ${problem}`);
      const client = await this.find(clientId);
      if (!client) throw new ClientInputError(`no client "${clientId}"`);
      if (client.redirectUris.includes(uri)) return false;
      await repo.setRedirectUris(clientId, JSON.stringify([...client.redirectUris, uri]));
      return true;
    },

    /** Lets a client ask for one more scope; true if it could not before. */
    async allowScope(clientId: string, scope: Scope): Promise<boolean> {
      const client = await this.find(clientId);
      if (!client) throw new ClientInputError(`no client "${clientId}"`);
      if (client.scopes.includes(scope)) return false;
      await repo.setScopes(clientId, [...client.scopes, scope].join(' '));
      return true;
    },

    /**
     * Removes the client and every sign-in made through it (grants, codes and
     * tokens, so its apps are signed out on the next request). The stream
     * ledger keeps naming it. False if there was no such client.
     */
    async delete(clientId: string): Promise<boolean> {
      if (clientId.includes('\u0000')) return false;
      return repo.deleteWithSignIns(clientId);
    },

    async find(clientId: string): Promise<OAuthClient | undefined> {
      // No client id holds NUL, and PostgreSQL cannot even compare one: no such client, on either database.
      if (clientId.includes('\u0000')) return undefined;
      const row = await repo.find(clientId);
      return row ? toClient(row) : undefined;
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
