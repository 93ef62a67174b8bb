/**
 * What binding a run to its owner writes and reads, as one store call (see `RunStore.claim`), so
 * that a backend can commit it once instead of once per entry.
 */
export interface RunClaim {
  runId: string;
  /** The entry naming the run's owner (its conversation): stored unless one is there. */
  ownerKey: string;
  owner: string;
  /** The entry read once the owner is bound (the run's record). */
  readKey: string;
  /** The entry holding when the run was first claimed (ms): stored unless one is there. */
  atKey: string;
  /**
   * The claim time to store: the number under `atOfRead` in the entry read (a JSON object) when
   * there is one, else `at`.
   */
  at: number;
  atOfRead: string;
  /** Ordered index the run joins at its stored claim time (see `addToOrderedIndex`). */
  orderedIndex: string;
  /** Plain indexes the run joins (see `addToIndex`). */
  indexes: readonly string[];
  /**
   * The run's first record, stored under `readKey` in the same commit when this is the run's first
   * claim (the claim stored its own `at`) and nothing is stored there: a turn starts its run's
   * first attempt with its claim instead of one more write after it.
   */
  initial?: string;
}

/**
 * What a claim found: the stored owner, and, when it is the claim's owner, the entry read and the
 * stored claim time, and `initial: true` when it stored the claim's `initial` (`read` is then what
 * was there before: nothing). A run bound to another owner is read no further and joins no index.
 */
export type RunClaimed =
  | { owner: string; bound: false }
  | { owner: string; bound: true; read: string | undefined; at: number; initial?: true };

/** The operations a claim uses, each awaited. */
export interface AsyncClaimOps {
  putIfAbsent(runId: string, key: string, value: string): Promise<string>;
  get(runId: string, key: string): Promise<string | undefined>;
  addToOrderedIndex(index: string, runId: string, at: number): Promise<void>;
  addToIndex(index: string, runId: string): Promise<void>;
}

/** The operations a claim uses, each synchronous (SQLite's, inside one synchronous transaction). */
export interface SyncClaimOps {
  putIfAbsent(runId: string, key: string, value: string): string;
  get(runId: string, key: string): string | undefined;
  addToOrderedIndex(index: string, runId: string, at: number): void;
  addToIndex(index: string, runId: string): void;
}

/** A claim over awaited operations, in order: the owner, the entry read, the claim time, the indexes. */
export async function claimInSteps(ops: AsyncClaimOps, claim: RunClaim): Promise<RunClaimed> {
  const owner = await ops.putIfAbsent(claim.runId, claim.ownerKey, claim.owner);
  if (owner !== claim.owner) return { owner, bound: false };
  const read = await ops.get(claim.runId, claim.readKey);
  const at = Number(
    await ops.putIfAbsent(claim.runId, claim.atKey, String(claimTime(claim, read))),
  );
  const stored = startsRecord(claim, read, at)
    ? await ops.putIfAbsent(claim.runId, claim.readKey, claim.initial!)
    : read;
  await ops.addToOrderedIndex(claim.orderedIndex, claim.runId, at);
  for (const index of claim.indexes) await ops.addToIndex(index, claim.runId);
  return claimed(owner, claim, read, stored, at);
}

/** {@link claimInSteps} over synchronous operations. */
export function claimInStepsSync(ops: SyncClaimOps, claim: RunClaim): RunClaimed {
  const owner = ops.putIfAbsent(claim.runId, claim.ownerKey, claim.owner);
  if (owner !== claim.owner) return { owner, bound: false };
  const read = ops.get(claim.runId, claim.readKey);
  const at = Number(ops.putIfAbsent(claim.runId, claim.atKey, String(claimTime(claim, read))));
  const stored = startsRecord(claim, read, at)
    ? ops.putIfAbsent(claim.runId, claim.readKey, claim.initial!)
    : read;
  ops.addToOrderedIndex(claim.orderedIndex, claim.runId, at);
  for (const index of claim.indexes) ops.addToIndex(index, claim.runId);
  return claimed(owner, claim, read, stored, at);
}

/** Whether a claim that read `read` and found the claim time `at` stores its `initial` record. */
function startsRecord(claim: RunClaim, read: string | undefined, at: number): boolean {
  return claim.initial !== undefined && read === undefined && at === claim.at;
}

/**
 * A bound claim's answer, from the entry read before and the one stored under `readKey` after (the
 * claim's own `initial`, or another writer's record that came first).
 */
export function claimed(
  owner: string,
  claim: RunClaim,
  read: string | undefined,
  stored: string | undefined,
  at: number,
): RunClaimed {
  if (claim.initial !== undefined && stored === claim.initial && read === undefined)
    return { owner, bound: true, read: undefined, at, initial: true };
  return { owner, bound: true, read: stored, at };
}

/** The claim time a claim stores when none is stored: the entry read's, else its own. */
function claimTime(claim: RunClaim, read: string | undefined): number {
  return read === undefined
    ? claim.at
    : Number((JSON.parse(read) as Record<string, unknown>)[claim.atOfRead]);
}
