import { Registry, collectDefaultMetrics, Counter, Gauge, Histogram } from 'prom-client';
import type { SongSnapshots } from '../catalog/song-snapshot.ts';

/** The Prometheus metrics of one node, and the one place answered requests are counted. */
export interface HttpMetrics {
  readonly registry: Registry;
  /** Counts an answered request (Fastify's onResponse hook), by method, route pattern (never the raw URL) and status. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(snapshots?: SongSnapshots): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'maqam_http_requests_total',
    help: 'HTTP requests answered, by route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'maqam_http_request_duration_seconds',
    help: 'Time from request to response, by route.',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  new Gauge({
    name: 'maqam_song_snapshot_songs',
    help: 'Songs in the snapshot that songs the cache lacks are read from (0 while there is none: they are read from the database).',
    registers: [registry],
    collect() {
      this.set(snapshots?.current?.songs ?? 0);
    },
  });
  new Gauge({
    name: 'maqam_song_snapshot_rendered_chains',
    help: 'Locale chains whose answers the song snapshot holds rendered (a song the cache lacks in another chain is rendered from its template).',
    registers: [registry],
    collect() {
      this.set(snapshots?.current?.renderedChains.length ?? 0);
    },
  });
  // Each series' children, bound once: prom-client builds and checks a key from the labels on every unbound call,
  // which cost more than some whole answers. As many as the series themselves (methods, route patterns, statuses).
  const bound = new Map<string, (seconds: number) => void>();
  return {
    registry,
    observe(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let observe = bound.get(key);
      if (observe === undefined) {
        const count = requests.labels({ method, route, status });
        const time = duration.labels({ route });
        observe = (answerSeconds) => {
          count.inc();
          time.observe(answerSeconds);
        };
        bound.set(key, observe);
      }
      observe(seconds);
    },
  };
}
