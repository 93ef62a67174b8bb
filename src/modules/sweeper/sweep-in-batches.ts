/**
 * Runs a bounded sweep pass (`pass(limit)` removes at most `limit` and says how many) again and
 * again until one removes fewer than the batch: nothing is left. Returns the total removed.
 */
export async function sweepInBatches(
  pass: (limit: number) => Promise<number>,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await pass(batchSize);
    total += removed;
    if (removed < batchSize) return total;
  }
}
