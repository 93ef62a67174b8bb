/** Latency statistics of one measured operation. */
export interface Measurement {
  readonly label: string;
  readonly iterations: number;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Runs `operation` sequentially `warmup` times unmeasured, then `iterations` times measured, and
 * reports throughput (iterations / total time) and latency percentiles.
 */
export async function measure(
  label: string,
  iterations: number,
  operation: (i: number) => Promise<unknown>,
  warmup = Math.ceil(iterations / 10),
): Promise<Measurement> {
  for (let i = 0; i < warmup; i += 1) await operation(-1 - i);
  const samples = new Float64Array(iterations);
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const t0 = performance.now();
    await operation(i);
    samples[i] = performance.now() - t0;
  }
  const total = performance.now() - started;
  samples.sort();
  return {
    label,
    iterations,
    opsPerSecond: (iterations / total) * 1000,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
  };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Formats a row of the results table: the library against the raw-driver floor. */
export function compareRow(backend: string, operation: string, library: Measurement, floor: Measurement): string {
  const ratio = library.p50Ms / floor.p50Ms;
  return `| ${backend} | ${operation} | ${fmt(library.opsPerSecond, 0)} | ${fmt(library.p50Ms, 3)} | ${fmt(library.p99Ms, 3)} | ${fmt(floor.opsPerSecond, 0)} | ${fmt(floor.p50Ms, 3)} | ${fmt(floor.p99Ms, 3)} | ${fmt(ratio, 2)}× |`;
}

/** The header of the results table. */
export const TABLE_HEADER = [
  '| backend | operation | lib ops/s | lib p50 ms | lib p99 ms | floor ops/s | floor p50 ms | floor p99 ms | p50 ratio |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|',
].join('\n');

function fmt(value: number, digits: number): string {
  return value.toFixed(digits);
}
