import { Redis } from 'ioredis';
import { createResilientRedis } from './redis-client.ts';

/**
 * Word of a catalog change, from the process that made it (an import) to
 * every node of the deployment, through the Redis they share: a node drops
 * what it rendered from the old catalog as soon as it hears, instead of at
 * its next poll of the catalog version (catalog-watch.ts), which stays as
 * the fallback for a Redis that is away or a writer without REDIS_URL.
 */
export interface CatalogChanges {
  /** Tells every node; never fails the change itself (a Redis away is the poll's to cover). */
  announce(): Promise<void>;
  /** Calls `listener` on every change announced, by this process or another; answers how to stop. */
  listen(listener: () => void): () => void;
  close(): Promise<void>;
}

/** What a process without a shared Redis has: its nodes poll. */
export const POLL_ONLY: CatalogChanges = {
  announce: async () => {},
  listen: () => () => {},
  close: async () => {},
};

/** Publishing slower than this counts as Redis away: the import goes on, nodes poll. */
const PUBLISH_TIMEOUT_MS = 250;

/** `deploymentId` (Storage.deploymentId) names the channel, so deployments sharing a Redis hear only their own. */
export function createRedisCatalogChanges(url: string, deploymentId: () => Promise<string | undefined>): CatalogChanges {
  const channelOf = async () => {
    const id = await deploymentId();
    return id === undefined ? undefined : `maqam:catalog-changed:${id}`;
  };
  let publisher: Redis | undefined;
  let subscriber: Redis | undefined;
  const listeners = new Set<() => void>();

  async function subscribe(): Promise<void> {
    const channel = await channelOf();
    if (channel === undefined) return;
    // A connection of its own (one that subscribes can do nothing else), resubscribed after every reconnect.
    // The subscription waits in the client's queue until Redis answers, however long it is away at start.
    subscriber = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 50, 500) });
    subscriber.on('error', () => {});
    subscriber.on('message', () => {
      for (const listener of listeners) listener();
    });
    await subscriber.subscribe(channel);
  }

  return {
    async announce() {
      try {
        const channel = await channelOf();
        if (channel === undefined) return;
        publisher ??= createResilientRedis(url, PUBLISH_TIMEOUT_MS);
        if (publisher.status === 'wait') await publisher.connect();
        await publisher.publish(channel, '1');
      } catch {
        // Nodes see the change at their next poll.
      }
    },
    listen(listener) {
      listeners.add(listener);
      if (subscriber === undefined) subscribe().catch(() => {});
      return () => listeners.delete(listener);
    },
    async close() {
      publisher?.disconnect();
      subscriber?.disconnect();
    },
  };
}
