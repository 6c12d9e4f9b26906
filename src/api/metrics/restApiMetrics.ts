import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram } from "prom-client";
import { type PowFailure, setPowObserver } from "./powObserver.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * The HTTP API as Hornet names it: `iota_restapi_requests_total{code,method,url}` of the echo
 * middleware Hornet installs (echo-contrib `prometheus`), `iota_restapi_http_request_errors`,
 * and the Proof-of-Work the node does for submitted blocks (`components/prometheus/rest_api.go`:
 * `iota_restapi_pow_requests`, `iota_restapi_pow_block_sizes`, `iota_restapi_pow_durations`
 * with Hornet's buckets), plus `iota_restapi_pow_failed_requests{reason}` of our own.
 *
 * Every label set is bounded, since clients choose what they send: `url` is the route pattern
 * (`/api/core/v2/blocks/:blockId`), never the request's path, and "unmatched" for a path no
 * route serves (echo-contrib would take the raw path there, a label set per path an attacker
 * invents); the `host` label of echo-contrib, the client's Host header, is left out for the
 * same reason; methods are those the HTTP parser accepts, statuses those the node answers.
 */

/** The `url` label of a request no route matched. */
export const UNMATCHED_ROUTE = "unmatched";

/** Label sets of the request counter at most; more are counted under `other` (never reached by design). */
export const MAX_REQUEST_SERIES = 2048;

/** Hornet's buckets (`components/prometheus/common.go`). */
const POW_BLOCK_SIZE_BUCKETS = [45, 133, 399, 1196, 3588, 10762, 32286];
const POW_DURATION_BUCKETS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500];

interface RequestSeries {
  labels: { code: string; method: string; url: string };
  /** The status answered (0 for the overflow series). */
  status: number;
  count: number;
}

/**
 * Requests answered, by route pattern, method and status. Three map lookups and an increment per
 * request, by strings the router and the HTTP parser hand over unchanged (their hashes are
 * cached), so no key is built per request.
 */
export class RequestCounts {
  private readonly routes = new Map<string, Map<string, Map<number, RequestSeries>>>();
  private readonly series: RequestSeries[] = [];
  private other: RequestSeries | undefined;

  constructor(private readonly maxSeries = MAX_REQUEST_SERIES) {}

  count(code: number, method: string, url: string | undefined): void {
    const route = url ?? UNMATCHED_ROUTE;
    const s = this.routes.get(route)?.get(method)?.get(code) ?? this.add(code, method, route);
    s.count++;
  }

  /** A new label set, or the overflow series once there are `maxSeries`. */
  private add(code: number, method: string, route: string): RequestSeries {
    if (this.series.length >= this.maxSeries) {
      this.other ??= { labels: { code: "other", method: "other", url: "other" }, status: 0, count: 0 };
      return this.other;
    }
    let methods = this.routes.get(route);
    if (!methods) {
      methods = new Map();
      this.routes.set(route, methods);
    }
    let statuses = methods.get(method);
    if (!statuses) {
      statuses = new Map();
      methods.set(method, statuses);
    }
    const s: RequestSeries = { labels: { code: String(code), method, url: route }, status: code, count: 0 };
    statuses.set(code, s);
    this.series.push(s);
    return s;
  }

  /** Every label set with its count, in order of first use; the overflow series last. */
  values(): RequestSeries[] {
    return this.other ? [...this.series, this.other] : [...this.series];
  }

  /** Requests answered with a 4xx or 5xx status. */
  errors(): number {
    let n = 0;
    for (const s of this.series) if (s.status >= 400) n += s.count;
    return n;
  }
}

/** Registers the REST API metrics: counts every answer of `app` and observes its PoW. */
export function registerRestApiMetrics(scraper: MetricsScraper, app: FastifyInstance): void {
  const registers = [scraper.registry];
  const counts = new RequestCounts();
  const requests = new Counter<"code" | "method" | "url">({
    name: "iota_restapi_requests_total",
    help: "How many HTTP requests processed, partitioned by status code, HTTP method and route.",
    labelNames: ["code", "method", "url"],
    registers,
  });
  const errors = new Gauge({
    name: "iota_restapi_http_request_errors",
    help: "The amount of encountered HTTP request errors (answers of status 400 and above).",
    registers,
  });
  const powCompleted = new Gauge({
    name: "iota_restapi_pow_requests",
    help: "The amount of completed REST API PoW requests.",
    registers,
  });
  const powFailed = new Counter<"reason">({
    name: "iota_restapi_pow_failed_requests",
    help: "REST API PoW requests that ended without a nonce, by reason (timeout, busy, aborted, disabled, error).",
    labelNames: ["reason"],
    registers,
  });
  const powSizes = new Histogram({
    name: "iota_restapi_pow_block_sizes",
    help: "The block size of REST API PoW requests.",
    buckets: POW_BLOCK_SIZE_BUCKETS,
    registers,
  });
  const powDurations = new Histogram({
    name: "iota_restapi_pow_durations",
    help: "The duration of REST API PoW requests [s].",
    buckets: POW_DURATION_BUCKETS,
    registers,
  });

  // synchronous, after the answer is sent; the route pattern, never the raw path
  app.addHook("onResponse", (request, reply, done) => {
    counts.count(reply.statusCode, request.method, request.routeOptions.url);
    done();
  });

  let completed = 0;
  setPowObserver(app, {
    completed(blockBytes, seconds) {
      completed++;
      powSizes.observe(blockBytes);
      powDurations.observe(seconds);
    },
    failed(reason: PowFailure) {
      powFailed.inc({ reason });
    },
  });

  scraper.addCollect(() => {
    requests.reset();
    for (const s of counts.values()) requests.inc(s.labels, s.count);
    errors.set(counts.errors());
    powCompleted.set(completed);
  });
}
