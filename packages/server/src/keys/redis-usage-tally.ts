import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createResilientRedis } from '../storage/redis-client.ts';
import type { UsageRow } from './api-keys.repo.ts';
import type { SharedUsageTally, UsageBatch, UsageTake } from './key-usage.ts';

/** Off the request path: a slow Redis delays a hand-over or a flush, never an answer. */
const COMMAND_TIMEOUT_MS = 2000;
/** How long a batch's mark is kept: a batch retried later than this would be counted again (a retry comes a second later). */
const BATCH_MARK_SECONDS = 3600;
/** A take not finished after this long was abandoned (its node died, or its answer was lost): the next flush writes it. */
export const STALE_TAKE_MS = 120_000;

/** A count's field in a key's hash: `day \n operation \n c|e|r` (calls, client errors, rate limited). */
const COLUMNS = { c: 'calls', e: 'client_errors', r: 'rate_limited' } as const;

// Adds a batch's counts once: a batch whose answer was lost is sent again with its id, and its mark says it is in.
// KEYS: the set of keys with counts, the batch's mark. ARGV: the hashes' prefix, the mark's life, then (key, field, count)...
const ADD_SCRIPT = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then return 0 end
for i = 3, #ARGV, 3 do
  redis.call('HINCRBY', ARGV[1] .. ARGV[i], ARGV[i + 1], ARGV[i + 2])
  redis.call('SADD', KEYS[1], ARGV[i])
end
return 1`;

// Moves every key's hash, and the set naming them, aside under the take's id, in one step, and answers what they hold:
// what one node takes no other takes, and it stays in Redis until the database has it (FINISH).
// KEYS: the set of keys with counts, the take's set, the takes' index. ARGV: the hashes' prefix, the take's prefix, its id, now.
const TAKE_SCRIPT = `
local ids = redis.call('SMEMBERS', KEYS[1])
if #ids == 0 then return {} end
redis.call('RENAME', KEYS[1], KEYS[2])
local taken = {}
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[1] .. id) == 1 then
    redis.call('RENAME', ARGV[1] .. id, ARGV[2] .. id)
    taken[#taken + 1] = id
    taken[#taken + 1] = redis.call('HGETALL', ARGV[2] .. id)
  end
end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
return taken`;

// What a take holds, to write again when it was abandoned. KEYS: the take's set. ARGV: the take's prefix.
const READ_TAKE_SCRIPT = `
local taken = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  taken[#taken + 1] = id
  taken[#taken + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return taken`;

// Forgets a take the database has. KEYS: the take's set, the takes' index. ARGV: the take's prefix, its id.
const FINISH_SCRIPT = `
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('DEL', ARGV[1] .. id) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1`;

type TallyCommands = {
  maqamUsageAdd(keysSet: string, mark: string, ...args: (string | number)[]): Promise<number>;
  maqamUsageTake(keysSet: string, takenSet: string, takes: string, hashPrefix: string, takenPrefix: string, takeId: string, now: number): Promise<(string | string[])[]>;
  maqamUsageReadTake(takenSet: string, takenPrefix: string): Promise<(string | string[])[]>;
  maqamUsageFinish(takenSet: string, takes: string, takenPrefix: string, takeId: string): Promise<number>;
};

/** A key's hash (`HGETALL`'s flat list of fields and values) as rows. */
function rowsOf(keyId: string, flat: readonly string[]): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [day, operation, column] = flat[i]!.split('\n') as [string, string, keyof typeof COLUMNS];
    const slot = `${day}\n${operation}`;
    let row = rows.get(slot);
    if (row === undefined) rows.set(slot, (row = { key_id: keyId, day, operation, calls: 0, client_errors: 0, rate_limited: 0 }));
    row[COLUMNS[column]] += Number(flat[i + 1]);
  }
  return [...rows.values()];
}

/** TAKE's or READ_TAKE's answer (key id, its hash, ...) as rows. */
function takenRows(taken: readonly (string | string[])[]): UsageRow[] {
  const rows: UsageRow[] = [];
  for (let i = 0; i + 1 < taken.length; i += 2) rows.push(...rowsOf(taken[i] as string, taken[i + 1] as string[]));
  return rows;
}

/**
 * API keys' usage counts shared by every node of a deployment through Redis
 * (key-usage.ts hands counts to it every second and takes them once a
 * minute): a hash per key and a set naming the keys with counts.
 * `deploymentId` keeps two deployments on one Redis apart.
 *
 * Nothing is counted twice or lost when Redis answers late (past the
 * command's timeout, the command may have run): a batch is added once by
 * its id, and a take stays in Redis, aside, until the database has it, so
 * one whose answer never came is written by a later flush. What remains: a
 * node killed between its write to the database and its FINISH leaves a
 * take that a later flush writes again (a millisecond's window).
 */
export function createRedisUsageTally(url: string, deploymentId: string, clock: () => number = Date.now): SharedUsageTally {
  const redis = createResilientRedis(url, COMMAND_TIMEOUT_MS) as Redis & TallyCommands;
  redis.defineCommand('maqamUsageAdd', { numberOfKeys: 2, lua: ADD_SCRIPT });
  redis.defineCommand('maqamUsageTake', { numberOfKeys: 3, lua: TAKE_SCRIPT });
  redis.defineCommand('maqamUsageReadTake', { numberOfKeys: 1, lua: READ_TAKE_SCRIPT });
  redis.defineCommand('maqamUsageFinish', { numberOfKeys: 2, lua: FINISH_SCRIPT });
  let connecting: Promise<void> | undefined;
  // A stalled Redis costs each call the command's timeout; key-usage.ts queues at most one hand-over behind another.
  const run = async <T>(command: () => Promise<T>): Promise<T> => {
    await (connecting ??= redis.connect().catch(() => {}));
    return command();
  };
  const prefix = `maqam:usage:${deploymentId}:`;
  const keysSet = `${prefix}keys`;
  const hashPrefix = `${prefix}key:`;
  const takes = `${prefix}takes`;
  const takenSet = (takeId: string) => `${prefix}take:${takeId}:keys`;
  const takenPrefix = (takeId: string) => `${prefix}take:${takeId}:key:`;
  const finish = (takeId: string) => () => run(() => redis.maqamUsageFinish(takenSet(takeId), takes, takenPrefix(takeId), takeId)).then(() => {});

  return {
    async add({ id, rows }: UsageBatch) {
      const args: (string | number)[] = [hashPrefix, BATCH_MARK_SECONDS];
      for (const row of rows) {
        const field = `${row.day}\n${row.operation}\n`;
        args.push(row.key_id, `${field}c`, row.calls);
        if (row.client_errors > 0) args.push(row.key_id, `${field}e`, row.client_errors);
        if (row.rate_limited > 0) args.push(row.key_id, `${field}r`, row.rate_limited);
      }
      await run(() => redis.maqamUsageAdd(keysSet, `${prefix}batch:${id}`, ...args));
    },
    async take(): Promise<UsageTake[]> {
      const found: UsageTake[] = [];
      const takeId = randomUUID();
      const taken = await run(() => redis.maqamUsageTake(keysSet, takenSet(takeId), takes, hashPrefix, takenPrefix(takeId), takeId, clock()));
      if (taken.length > 0) found.push({ rows: takenRows(taken), finish: finish(takeId) });
      // Takes abandoned by a node that died, or whose answer never came: written by this flush.
      for (const stale of await run(() => redis.zrangebyscore(takes, '-inf', clock() - STALE_TAKE_MS))) {
        found.push({ rows: takenRows(await run(() => redis.maqamUsageReadTake(takenSet(stale), takenPrefix(stale)))), finish: finish(stale) });
      }
      return found;
    },
    async pendingOf(keyId) {
      const hash = await run(() => redis.hgetall(hashPrefix + keyId));
      return rowsOf(keyId, Object.entries(hash).flat());
    },
    async close() {
      redis.disconnect();
    },
  };
}
