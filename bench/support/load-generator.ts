/**
 * The HTTP benchmark's load generator, run in its own process (`fork`) so that it does not share a
 * core's event loop with the server it measures. It takes one job per IPC message, runs autocannon
 * on it and answers with requests/s and latency percentiles. Latencies are kept with microsecond
 * resolution from autocannon's `response` events (its own histogram rounds to whole milliseconds,
 * too coarse for a sub-millisecond route).
 */
import autocannon from 'autocannon';

/** One load run: requests rotate over `paths`; every connection keeps alive. */
export interface LoadJob {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  paths: string[];
  body?: string;
  connections: number;
  durationSeconds: number;
  /** The status every answer must have; others count as errors. */
  expectStatus: number;
}

/** What a load run measured. */
export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with another status, and connection errors. */
  errors: number;
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.durationSeconds,
        requests: [
          {
            method: job.method,
            ...(job.body === undefined
              ? {}
              : { body: job.body, headers: { 'content-type': 'application/json' } }),
            setupRequest: (request) => {
              request.path = job.paths[next++ % job.paths.length]!;
              return request;
            },
          },
        ],
      },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status === job.expectStatus) latencies.push(ms);
    else errors += 1;
  });
  instance.on('reqError', () => (errors += 1));
  const result = await finished;
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / Math.min(seconds, result.duration || seconds),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    errors: errors + result.errors + result.timeouts,
  };
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, error: String(error) }),
  );
});
