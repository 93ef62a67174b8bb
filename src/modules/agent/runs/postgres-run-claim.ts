import { POSTGRES_DEADLOCK, retryTransaction } from '../../connections/sql/retry-on-deadlock.js';
import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import { type RunClaim, type RunClaimed, claimed } from './run-claim.js';
import { POSTGRES_IF_ABSENT, POSTGRES_REPLACING } from './sql-run-statements.js';

/**
 * A claim as one statement (one round trip, one commit): the owner stored unless one is; then,
 * only where the stored owner is the claim's and the run is not a legacy one (a live record but no
 * stored claim time), the claim time stored unless one is and the run added to its indexes. Every
 * part sees the table as it was when the statement began, so the entry read is the run's record
 * before this statement (it writes no record). The ordered index key is `orderedKey`'s: the time
 * zero-padded to 15 digits, `/`, the run id. A legacy run's claim time comes from its record's JSON,
 * which is read in JavaScript: for it the statement writes no claim time and no index entry, and
 * answers no `at`. The run's first record (`initial`, when given) is stored under the read key
 * where the claim time stored is the claim's own and no live record was read; `stored` answers what
 * the read key holds after that insert (its own value, or a record a concurrent writer stored first).
 *
 * Parameters: run id, owner key, owner, expires at, now, read key, at key, at, ordered index,
 * plain indexes (text[]), initial record (or null).
 */
const CLAIM = `WITH owner AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ${POSTGRES_IF_ABSENT}
    RETURNING value
  ), read AS (
    SELECT value FROM agent_run_entries WHERE run_id = $1 AND entry_key = $6 AND expires_at > $5
  ), bound AS (
    SELECT 1 FROM owner WHERE owner.value = $3 AND (NOT EXISTS (SELECT 1 FROM read) OR EXISTS (
      SELECT 1 FROM agent_run_entries WHERE run_id = $1 AND entry_key = $7 AND expires_at > $5))
  ), claimed_at AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $1, $7, $8::text, $4 FROM bound
    ${POSTGRES_IF_ABSENT}
    RETURNING value
  ), ordered AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $9, lpad(claimed_at.value, 15, '0') || '/' || $1, '', $4 FROM claimed_at
    ${POSTGRES_REPLACING}
  ), indexed AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT DISTINCT indexes.id, $1, '', $4 FROM bound, unnest($10::text[]) AS indexes (id)
    ${POSTGRES_REPLACING}
  ), initial AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $1, $6, $11::text, $4 FROM claimed_at
    WHERE $11::text IS NOT NULL AND claimed_at.value = $8::text AND NOT EXISTS (SELECT 1 FROM read)
    ${POSTGRES_IF_ABSENT}
    RETURNING value
  )
  SELECT owner.value AS owner, (SELECT value FROM read) AS read,
    (SELECT value FROM claimed_at) AS at, (SELECT value FROM initial) AS stored
  FROM owner`;

/**
 * Runs a claim on PostgreSQL in one statement (see `CLAIM`); a legacy run goes through `steps`.
 * The statement locks the owner's row before the claim time's, where a deletion of the run locks
 * them in key order: a claim racing the run's deletion can deadlock, and runs again (deadlock or
 * serialization failure, up to 5 tries; it decides from what it reads, so running it again is safe).
 */
export function claimOnPostgres(
  execute: SqlExecutor,
  claim: RunClaim,
  clock: { now: number; retentionMs: number },
  steps: (claim: RunClaim) => Promise<RunClaimed>,
): Promise<RunClaimed> {
  return retryTransaction<RunClaimed>(POSTGRES_DEADLOCK, async () => {
    type Row = { owner: string; read: string | null; at: string | null; stored: string | null };
    const [row] = await execute<Row>('run_claim', CLAIM, [
      claim.runId,
      claim.ownerKey,
      claim.owner,
      clock.now + clock.retentionMs,
      clock.now,
      claim.readKey,
      claim.atKey,
      claim.at,
      claim.orderedIndex,
      claim.indexes,
      claim.initial ?? null,
    ]);
    const { owner, read, at, stored } = row!;
    if (owner !== claim.owner) return { owner, bound: false };
    if (at === null) return steps(claim);
    return claimed(owner, claim, read ?? undefined, stored ?? read ?? undefined, Number(at));
  });
}
