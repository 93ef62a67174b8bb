/** Latency statistics of one measured operation. */
export interface Measurement {
  readonly iterations: number;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** An operation to time; `i` counts calls, negative during warm-up. */
export type Operation = (i: number) => Promise<unknown>;

/**
 * Times the library and its floor call by call, alternating (library, floor, floor, library, …: the
 * two-operation case of {@link measureRotating}) so
 * that the machine's noise, large on a small box, falls on both alike; after a warm-up of each. Reports
 * throughput (calls / time spent in them) and latency percentiles. One call in flight.
 */
export async function measurePair(
  library: Operation,
  floor: Operation,
  iterations: number,
): Promise<{ library: Measurement; floor: Measurement }> {
  return measureRotating({ library, floor }, iterations);
}

async function timed(operation: Operation, i: number): Promise<number> {
  const started = performance.now();
  await operation(i);
  return performance.now() - started;
}

function summarize(samples: Float64Array): Measurement {
  const sorted = Float64Array.from(samples).sort();
  const total = samples.reduce((sum, sample) => sum + sample, 0);
  return {
    iterations: samples.length,
    opsPerSecond: (samples.length / total) * 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The header of the results table. */
export const TABLE_HEADER = [
  '| backend | operation | lib ops/s | lib p50 ms | lib p99 ms | floor ops/s | floor p50 ms | floor p99 ms | p50 ratio |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|',
].join('\n');

/** One row of the results table: the library against the raw-driver floor. */
export function compareRow(
  backend: string,
  operation: string,
  pair: { library: Measurement; floor: Measurement },
): string {
  const { library, floor } = pair;
  return `| ${backend} | ${operation} | ${library.opsPerSecond.toFixed(0)} | ${library.p50Ms.toFixed(3)} | ${library.p99Ms.toFixed(3)} | ${floor.opsPerSecond.toFixed(0)} | ${floor.p50Ms.toFixed(3)} | ${floor.p99Ms.toFixed(3)} | ${(library.p50Ms / floor.p50Ms).toFixed(2)}× |`;
}

/**
 * Times several operations call by call, rotating which goes first on each call (a, b, c; b, c, a;
 * …), after a warm-up of each, so the machine's noise falls on all of them alike. One call in flight.
 */
export async function measureRotating<K extends string>(
  operations: Record<K, Operation>,
  iterations: number,
): Promise<Record<K, Measurement>> {
  const names = Object.keys(operations) as K[];
  const warmup = Math.ceil(iterations / 10);
  for (let i = 0; i < warmup; i += 1) for (const name of names) await operations[name](-1 - i);
  const samples = Object.fromEntries(
    names.map((name) => [name, new Float64Array(iterations)]),
  ) as Record<K, Float64Array>;
  for (let i = 0; i < iterations; i += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(i + k) % names.length]!;
      samples[name][i] = await timed(operations[name], i);
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarize(samples[name])])) as Record<
    K,
    Measurement
  >;
}

/**
 * Runs `writers` loops at once, each calling `operation(writer, call)` `calls` times in sequence:
 * throughput is calls / wall time; percentiles are per call.
 */
export async function measureConcurrent(
  operation: (writer: number, call: number) => Promise<unknown>,
  writers: number,
  calls: number,
): Promise<Measurement> {
  const samples = new Float64Array(writers * calls);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let call = 0; call < calls; call += 1) {
        const begin = performance.now();
        await operation(writer, call);
        samples[writer * calls + call] = performance.now() - begin;
      }
    }),
  );
  const wall = performance.now() - started;
  const sorted = Float64Array.from(samples).sort();
  return {
    iterations: samples.length,
    opsPerSecond: (samples.length / wall) * 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}
