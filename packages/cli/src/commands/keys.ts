import { ApiKeyNotFoundError, createApiKeysRepo, createApiKeysService, createUsersService, UserInputError, type Config } from '@maqam/server';
import { withStorage } from '../context.ts';
import { parseDuration, table, UsageError, type Output } from '../output.ts';

/** An ISO time to the minute, as people read it (UTC). */
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}Z`;

const USAGE = 'maqam keys create --name NAME [--expires-in 90d] | list [--owner U] | revoke KEY_ID | rotate KEY_ID [--grace 24h]';

export async function keys(
  config: Config,
  out: Output,
  [action, id]: (string | undefined)[],
  flags: { name?: string; 'expires-in'?: string; grace?: string; owner?: string },
): Promise<number> {
  return withStorage(config, out, async (storage) => {
    const service = createApiKeysService(createApiKeysRepo(storage.db));
    try {
      switch (action) {
        case 'create': {
          if (!flags.name) throw new UsageError('keys create needs --name NAME');
          const expiresIn = flags['expires-in'] === undefined ? undefined : parseDuration(flags['expires-in'], '--expires-in');
          const created = await service.create({
            name: flags.name,
            expiresAt: expiresIn === undefined ? null : Date.now() + expiresIn * 1000,
          });
          out.record(created, () => `created API key ${created.id} (${created.name})\n${created.key}\nThis is the only time the key is shown; store it now.`);
          return 0;
        }
        case 'list': {
          const owner = flags.owner === undefined ? undefined : await createUsersService(storage.db).find(flags.owner);
          const list = await service.list(owner && { ownerId: owner.id });
          out.record(list, () =>
            list.length === 0
              ? (owner ? `${owner.username} has no API keys` : 'no API keys')
              : table(['id', 'status', 'name', 'owner', 'created', 'expires', 'last used'], list.map((k) => [
                k.id, k.status, k.name, k.owner ?? '(operator)', minute(k.createdAt), k.expiresAt ? minute(k.expiresAt) : 'never', k.lastUsedAt ? minute(k.lastUsedAt) : 'never',
              ])),
          );
          return 0;
        }
        case 'revoke': {
          if (!id) throw new UsageError('keys revoke needs KEY_ID');
          await service.revoke(id);
          out.record({ id, revoked: true }, () => `revoked API key ${id}`);
          return 0;
        }
        case 'rotate': {
          if (!id) throw new UsageError('keys rotate needs KEY_ID');
          const grace = parseDuration(flags.grace ?? '24h', '--grace');
          const created = await service.rotate(id, grace);
          out.record({ ...created, replaces: id, graceSeconds: grace }, () =>
            `created API key ${created.id} replacing ${id}, which stays valid for ${grace} s\n${created.key}\nThis is the only time the key is shown; store it now.`,
          );
          return 0;
        }
        default:
          throw new UsageError(USAGE);
      }
    } catch (error) {
      if (error instanceof ApiKeyNotFoundError || error instanceof UserInputError) {
        out.info(`maqam: ${error.message}`);
        return 1;
      }
      throw error;
    }
  });
}
