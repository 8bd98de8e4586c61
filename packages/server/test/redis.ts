import { Redis } from 'ioredis';

/**
 * The Redis the suites that need one use (MAQAM_TEST_REDIS, default local).
 * If it does not answer that is said loudly and those suites are skipped; CI
 * sets MAQAM_REQUIRE_REDIS=1 so a missing Redis fails instead.
 */
export const REDIS_URL = process.env.MAQAM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export const redisUp = await redisReachable();
if (!redisUp) {
  if (process.env.MAQAM_REQUIRE_REDIS === '1') throw new Error(`MAQAM_REQUIRE_REDIS=1 but Redis at ${REDIS_URL} does not answer`);
  process.stderr.write(`\n*** Redis at ${REDIS_URL} is not reachable: SKIPPING the suites that need Redis ***\n\n`);
}
