import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Registry, collectDefaultMetrics, Counter, Gauge, Histogram } from 'prom-client';
import type { SongSnapshots } from '../catalog/song-snapshot.ts';
import { ApiError } from '../errors.ts';
import type { Storage } from '../storage/storage.ts';

/** Liveness, readiness, Prometheus metrics and the OpenAPI document. */
export function opsRoutes(app: FastifyInstance, storage: Storage, snapshots?: SongSnapshots): void {
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
  const series = new Map<string, { readonly count: { inc(): void }; readonly time: { observe(seconds: number): void } }>();
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let bound = series.get(key);
    if (bound === undefined) {
      bound = { count: requests.labels({ method: request.method, route, status: reply.statusCode }), time: duration.labels({ route }) };
      series.set(key, bound);
    }
    bound.count.inc();
    bound.time.observe(reply.elapsedTime / 1000);
    done();
  });

  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async () => {
    try {
      await sql`select 1`.execute(storage.db);
    } catch {
      throw new ApiError('unavailable', { headers: { 'retry-after': '5' } });
    }
    return { status: 'ready' };
  });
  app.get('/metrics', hidden, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  app.get('/v1/openapi.json', hidden, async () => app.swagger());
}
