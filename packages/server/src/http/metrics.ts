import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The Prometheus metrics of one node, and the one place answered requests are counted. */
export interface HttpMetrics {
  readonly registry: Registry;
  /** Counts an answered request (Fastify's onResponse hook), by method, route pattern (never the raw URL) and status. */
  countAnswer(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(): HttpMetrics {
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
  // Each series' children bound once (as many as there are methods, route patterns and statuses), so an answer
  // does not build and check its label object again.
  const bound = new Map<string, (seconds: number) => void>();
  return {
    registry,
    countAnswer(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let count = bound.get(key);
      if (count === undefined) {
        const answered = requests.labels({ method, route, status });
        const timed = duration.labels({ route });
        count = (answerSeconds) => {
          answered.inc();
          timed.observe(answerSeconds);
        };
        bound.set(key, count);
      }
      count(seconds);
    },
  };
}
