import { createLedgerRepo, type Config, type LedgerGrouping } from '@maqam/server';
import { withStorage } from '../context.ts';
import { parseDuration, parsePositiveInteger, table, UsageError, type Output } from '../output.ts';

const GROUPINGS: readonly LedgerGrouping[] = ['day', 'song', 'client'];

/** `maqam ledger`: billed streams by day, song or client over the last period. */
export async function ledger(config: Config, out: Output, flags: { by?: string; since?: string; limit?: string }): Promise<number> {
  const by = (flags.by ?? 'day') as LedgerGrouping;
  if (!GROUPINGS.includes(by)) throw new UsageError(`--by takes one of ${GROUPINGS.join(', ')}; got "${flags.by}"`);
  const since = parseDuration(flags.since ?? '30d', '--since');
  const limit = flags.limit === undefined ? 100 : parsePositiveInteger(flags.limit, '--limit');
  const to = Date.now();
  const from = to - since * 1000;
  return withStorage(config, out, async (storage) => {
    const groups = await createLedgerRepo(storage.db).report(by, { from, to }, limit);
    const total = groups.reduce((sum, group) => sum + group.streams, 0);
    out.record({ by, from: new Date(from).toISOString(), to: new Date(to).toISOString(), groups }, () =>
      groups.length === 0
        ? `no billed streams since ${new Date(from).toISOString().slice(0, 16).replace('T', ' ')}Z`
        : `${table([by, 'streams', 'listeners'], groups.map((g) => [g.key, String(g.streams), String(g.listeners)]))}\n${total} billed stream${total === 1 ? '' : 's'} in ${groups.length} ${by === 'day' ? 'day' : by}${groups.length === 1 ? '' : 's'}${groups.length === limit ? ` (the first ${limit}; --limit for more)` : ''}`,
    );
    return 0;
  });
}
