import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { HttpMetrics } from './metrics.ts';

/** Liveness, readiness, Prometheus metrics and the OpenAPI document. */
export function opsRoutes(app: FastifyInstance, storage: Storage, metrics: HttpMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    metrics.countAnswer(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async () => {
    try {
      await storage.ping();
    } catch {
      throw new ApiError('unavailable', { headers: { 'retry-after': '5' } });
    }
    return { status: 'ready' };
  });
  app.get('/metrics', hidden, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/v1/openapi.json', hidden, async () => app.swagger());
}
