import { ClientInputError, createClientsService, createUsersService, UserInputError, type Config } from '@maqam/server';
import { withStorage } from '../context.ts';
import { UsageError, type Output } from '../output.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
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

export async function users(
  config: Config,
  out: Output,
  [action]: (string | undefined)[],
  flags: { username?: string; password?: string; 'password-stdin'?: boolean },
): Promise<number> {
  if (action !== 'create') throw new UsageError('maqam users create --username U (--password P | --password-stdin)');
  if (!flags.username) throw new UsageError('users create needs --username U');
  if ((flags.password === undefined) === !flags['password-stdin']) {
    throw new UsageError('users create needs exactly one of --password P or --password-stdin');
  }
  const password = flags.password ?? (await readStdin());
  return withStorage(config, out, async (storage) => {
    try {
      const user = await createUsersService(storage.db).create(flags.username!, password);
      out.record(user, () => `created user ${user.username} (${user.id})`);
      return 0;
    } catch (error) {
      return refused(out, error);
    }
  });
}

export async function clients(
  config: Config,
  out: Output,
  [action]: (string | undefined)[],
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
            list.length === 0 ? 'no clients' : list.map((c) => `${c.clientId}  ${c.name}  [${c.scopes.join(' ')}]  ${c.redirectUris.join(' ')}`).join('\n'),
          );
          return 0;
        }
        default:
          throw new UsageError('maqam clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--scopes "read stream"] | clients list');
      }
    } catch (error) {
      return refused(out, error);
    }
  });
}
