import type { Redis } from 'ioredis';
import { createResilientRedis } from '../storage/redis-client.ts';
import type { UsageRow } from './api-keys.repo.ts';
import type { SharedUsageTally } from './key-usage.ts';

/** Off the request path: a slow Redis delays a hand-over, never an answer. */
const COMMAND_TIMEOUT_MS = 2000;

/** A count's field in a key's hash: `day \n operation \n c|e|r` (calls, client errors, rate limited). */
const COLUMNS = { c: 'calls', e: 'client_errors', r: 'rate_limited' } as const;

// Takes every key's hash and empties the set that names them, in one step: what a node takes, no other node takes.
// (The hashes' names are made in the script, so a Redis Cluster would need them in one slot; Maqam uses one Redis.)
const TAKE_SCRIPT = `
local ids = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
local taken = {}
for _, id in ipairs(ids) do
  local hash = ARGV[1] .. id
  taken[#taken + 1] = id
  taken[#taken + 1] = redis.call('HGETALL', hash)
  redis.call('DEL', hash)
end
return taken`;

type TallyCommands = { maqamUsageTake(set: string, hashPrefix: string): Promise<(string | string[])[]> };

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

/**
 * API keys' usage counts shared by every node of a deployment through Redis
 * (key-usage.ts hands counts to it every second and takes them once a
 * minute): a hash per key and a set naming the keys with counts.
 * `deploymentId` keeps two deployments on one Redis apart.
 */
export function createRedisUsageTally(url: string, deploymentId: string): SharedUsageTally {
  const redis = createResilientRedis(url, COMMAND_TIMEOUT_MS) as Redis & TallyCommands;
  redis.defineCommand('maqamUsageTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const connecting = redis.connect().catch(() => {});
  const keysSet = `maqam:usage:${deploymentId}:keys`;
  const hashPrefix = `maqam:usage:${deploymentId}:key:`;
  return {
    async add(rows) {
      await connecting;
      const batch = redis.multi();
      for (const row of rows) {
        const field = `${row.day}\n${row.operation}\n`;
        batch.hincrby(hashPrefix + row.key_id, `${field}c`, row.calls);
        if (row.client_errors > 0) batch.hincrby(hashPrefix + row.key_id, `${field}e`, row.client_errors);
        if (row.rate_limited > 0) batch.hincrby(hashPrefix + row.key_id, `${field}r`, row.rate_limited);
        batch.sadd(keysSet, row.key_id);
      }
      const results = await batch.exec();
      const failed = results?.find(([error]) => error !== null);
      if (results === null || failed) throw failed?.[0] ?? new Error('Redis discarded the usage counts');
    },
    async take() {
      await connecting;
      const taken = await redis.maqamUsageTake(keysSet, hashPrefix);
      const rows: UsageRow[] = [];
      for (let i = 0; i + 1 < taken.length; i += 2) rows.push(...rowsOf(taken[i] as string, taken[i + 1] as string[]));
      return rows;
    },
    async pendingOf(keyId) {
      await connecting;
      const hash = await redis.hgetall(hashPrefix + keyId);
      return rowsOf(keyId, Object.entries(hash).flat());
    },
    async close() {
      redis.disconnect();
    },
  };
}
