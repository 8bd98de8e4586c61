import { Registry, collectDefaultMetrics } from 'prom-client';

/** The Prometheus metrics of one node, and the one place answered requests are counted. */
export interface HttpMetrics {
  readonly registry: Registry;
  /** Counts an answered request (Fastify's onResponse hook), by method, route pattern (never the raw URL) and status. */
  countAnswer(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new AnsweredRequests();
  registry.registerMetric(requests.counter as never);
  registry.registerMetric(requests.histogram as never);
  return { registry, countAnswer: (method, route, status, seconds) => requests.count(method, route, status, seconds) };
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** What one method, route and status has answered. */
interface StatusSeries {
  readonly labels: { readonly method: string; readonly route: string; readonly status: number };
  count: number;
}
/** How long one route's answers took: counts per bucket (not cumulative), their sum and count. */
interface DurationSeries {
  readonly route: string;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * maqam_http_requests_total and maqam_http_request_duration_seconds, kept
 * as plain numbers per series and handed to prom-client's registry when it
 * is scraped (a registered metric is anything with a name and `get()`).
 * prom-client's own labelled `inc` and `observe` built, checked and hashed a
 * label object on every call, even on bound children: a few microseconds of
 * every request, more than some whole answers.
 */
class AnsweredRequests {
  readonly #byStatus = new Map<string, StatusSeries>();
  readonly #byRoute = new Map<string, DurationSeries>();

  count(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let answered = this.#byStatus.get(key);
    if (answered === undefined) this.#byStatus.set(key, (answered = { labels: { method, route, status }, count: 0 }));
    answered.count++;
    let timed = this.#byRoute.get(route);
    if (timed === undefined) this.#byRoute.set(route, (timed = { route, buckets: new Float64Array(DURATION_BUCKETS.length), sum: 0, count: 0 }));
    const bucket = DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket !== -1) timed.buckets[bucket]!++;
    timed.sum += seconds;
    timed.count++;
  }

  readonly counter = {
    name: 'maqam_http_requests_total',
    help: 'HTTP requests answered, by route and status.',
    get: () => ({
      name: this.counter.name, help: this.counter.help, type: 'counter', aggregator: 'sum',
      values: [...this.#byStatus.values()].map((series) => ({ labels: series.labels, value: series.count })),
    }),
    reset: () => this.#byStatus.clear(),
  };

  readonly histogram = {
    name: 'maqam_http_request_duration_seconds',
    help: 'Time from request to response, by route.',
    get: () => ({
      name: this.histogram.name, help: this.histogram.help, type: 'histogram', aggregator: 'sum',
      values: [...this.#byRoute.values()].flatMap(({ route, buckets, sum, count }) => {
        let cumulative = 0;
        return [
          ...DURATION_BUCKETS.map((bound, i) => ({ metricName: `${this.histogram.name}_bucket`, labels: { le: bound, route }, value: (cumulative += buckets[i]!) })),
          { metricName: `${this.histogram.name}_bucket`, labels: { le: '+Inf', route }, value: count },
          { metricName: `${this.histogram.name}_sum`, labels: { route }, value: sum },
          { metricName: `${this.histogram.name}_count`, labels: { route }, value: count },
        ];
      }),
    }),
    reset: () => this.#byRoute.clear(),
  };
}
