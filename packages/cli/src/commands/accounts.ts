import { ClientInputError, createClientsService, createUsersService, UserInputError, type Config } from '@maqam/server';
import { withStorage } from '../context.ts';
import { exportUser } from './user-export.ts';
import { table, UsageError, type Output } from '../output.ts';

async function readStdin(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  // A password piped with echo or a here-string ends in a newline that is not part of it.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Input the service refused: said plainly, exit code 1. */
function refused(out: Output, error: unknown): number {
  if (error instanceof UserInputError || error instanceof ClientInputError) {
    out.info(`maqam: ${error.message}`);
    return 1;
  }
  throw error;
}

const USERS_USAGE =
  'maqam users create --username U (--password P | --password-stdin) | list | disable U | enable U | delete U --yes | set-password U (--password P | --password-stdin) | set-max-age-rating U AGE_RATING_13|none | grant U developer | revoke U developer | export U [--out FILE] [--locale TAG]';

/** The password from exactly one of --password or --password-stdin. */
async function passwordFrom(flags: { password?: string; 'password-stdin'?: boolean }, command: string, stdin: AsyncIterable<Buffer | string>): Promise<string> {
  if ((flags.password === undefined) === !flags['password-stdin']) {
    throw new UsageError(`${command} needs exactly one of --password P or --password-stdin`);
  }
  return flags.password ?? (await readStdin(stdin));
}

const ended = (n: number) => (n === 0 ? 'no sign-in to end' : n === 1 ? '1 sign-in ended' : `${n} sign-ins ended`);

export async function users(
  config: Config,
  out: Output,
  [action, name, value]: (string | undefined)[],
  flags: { username?: string; password?: string; 'password-stdin'?: boolean; yes?: boolean; out?: string; locale?: string },
  stdin: AsyncIterable<Buffer | string>,
): Promise<number> {
  const username = action === 'create' ? flags.username : (name ?? flags.username);
  if (action === undefined || !['create', 'list', 'disable', 'enable', 'delete', 'set-password', 'set-max-age-rating', 'grant', 'revoke', 'export'].includes(action)) throw new UsageError(USERS_USAGE);
  if (action !== 'list' && !username) throw new UsageError(`users ${action} needs ${action === 'create' ? '--username U' : 'a username'}`);
  const password = action === 'create' || action === 'set-password' ? await passwordFrom(flags, `users ${action}`, stdin) : '';
  return withStorage(config, out, async (storage) => {
    const service = createUsersService(storage.db);
    try {
      switch (action) {
        case 'create': {
          const user = await service.create(username!, password);
          out.record(user, () => `created user ${user.username} (${user.id})`);
          return 0;
        }
        case 'list': {
          const list = await service.list();
          out.record(list, () =>
            list.length === 0
              ? 'no users'
              : table(['username', 'id', 'created', 'status', 'sign-ins'], list.map((u) => [
                u.username, u.id, u.createdAt.slice(0, 16).replace('T', ' '), u.disabledAt ? `disabled ${u.disabledAt.slice(0, 10)}` : 'active', String(u.activeSignIns),
              ])),
          );
          return 0;
        }
        case 'disable': {
          const { user, signInsEnded } = await service.disable(username!);
          out.record({ ...user, disabled: true, signInsEnded }, () => `disabled ${user.username}: cannot sign in; ${ended(signInsEnded)}`);
          return 0;
        }
        case 'delete': {
          if (!flags.yes) {
            throw new UsageError(`users delete removes ${username}'s account, sign-ins, library, listening history and change feed for good; add --yes to confirm`);
          }
          const user = await service.delete(username!);
          out.record({ ...user, deleted: true }, () => `deleted ${user.username} (${user.id}): account, sign-ins, library, history and change feed`);
          return 0;
        }
        case 'set-max-age-rating': {
          if (value === undefined) throw new UsageError('users set-max-age-rating needs a username and a rating (AGE_RATING_ALL, _7, _13, _16, _18) or none');
          const { user, maxAgeRating } = await service.setMaxAgeRating(username!, value);
          out.record({ ...user, maxAgeRating }, () =>
            maxAgeRating === null ? `${user.username} has no parental cap` : `${user.username} sees titles rated up to ${maxAgeRating} from their next request on`);
          return 0;
        }
        case 'grant':
        case 'revoke': {
          if (value === undefined) throw new UsageError(`users ${action} needs a username and a role (developer)`);
          const { user, roles } = await service.setRole(username!, value, action === 'grant');
          out.record({ ...user, roles }, () => action === 'grant'
            ? `${user.username} has the ${value} role: they manage API keys of their own (a token with the developer scope)`
            : `${user.username} no longer has the ${value} role; the keys they made keep working until revoked`);
          return 0;
        }
        case 'export': {
          const written = await exportUser(storage, config, (await service.find(username!)).id, flags);
          out.record(written, () => `wrote ${written.username}'s data to ${written.file} (${(written.bytes / 1e6).toFixed(1)} MB)`);
          return 0;
        }
        case 'enable': {
          const user = await service.enable(username!);
          out.record({ ...user, disabled: false }, () => `enabled ${user.username}: can sign in again`);
          return 0;
        }
        default: {
          const { user, signInsEnded } = await service.setPassword(username!, password);
          out.record({ ...user, passwordChanged: true, signInsEnded }, () => `set a new password for ${user.username}; ${ended(signInsEnded)}`);
          return 0;
        }
      }
    } catch (error) {
      return refused(out, error);
    }
  });
}

export async function clients(
  config: Config,
  out: Output,
  [action, clientId, uri]: (string | undefined)[],
  flags: { name?: string; 'redirect-uri'?: string[]; scopes?: string },
): Promise<number> {
  return withStorage(config, out, async (storage) => {
    const service = createClientsService(storage.db);
    try {
      switch (action) {
        case 'create': {
          if (!flags.name) throw new UsageError('clients create needs --name N');
          const created = await service.create({
            name: flags.name,
            redirectUris: flags['redirect-uri'] ?? [],
            ...(flags.scopes === undefined ? {} : { scopes: flags.scopes.split(/[\s,]+/).filter(Boolean) }),
          });
          out.record(created, () =>
            `created public client ${created.name}\n  client_id:     ${created.clientId}\n  redirect URIs: ${created.redirectUris.join(', ')}\n  scopes:        ${created.scopes.join(' ')}`,
          );
          return 0;
        }
        case 'list': {
          const list = await service.list();
          out.record(list, () =>
            list.length === 0
              ? 'no clients'
              : table(['client_id', 'name', 'scopes', 'redirect URIs'], list.map((c) => [c.clientId, c.name, c.scopes.join(' '), c.redirectUris.join(' ')])),
          );
          return 0;
        }
        case 'delete': {
          if (!clientId) throw new UsageError('clients delete needs CLIENT_ID');
          if (!(await service.delete(clientId))) throw new ClientInputError(`no client "${clientId}"`);
          out.record({ clientId, deleted: true }, () => `deleted client ${clientId}; everyone signed in through it is signed out`);
          return 0;
        }
        case 'add-redirect-uri': {
          const added = clientId && (uri ?? flags['redirect-uri']?.[0]);
          if (!clientId || !added) throw new UsageError('clients add-redirect-uri needs CLIENT_ID URI');
          const isNew = await service.addRedirectUri(clientId, added);
          out.record({ clientId, redirectUri: added, added: isNew }, () => (isNew ? `added ${added} to ${clientId}` : `${clientId} already has ${added}`));
          return 0;
        }
        default:
          throw new UsageError('maqam clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--scopes "read stream write"] | list | delete CLIENT_ID | add-redirect-uri CLIENT_ID URI');
      }
    } catch (error) {
      return refused(out, error);
    }
  });
}
