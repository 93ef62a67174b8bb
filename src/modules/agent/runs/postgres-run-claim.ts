import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import type { RunClaim, RunClaimed } from './run-claim.js';

/** Stores a value unless a live one is there (an expired one is replaced), as `putIfAbsent`. */
const IF_ABSENT = `ON CONFLICT (run_id, entry_key) DO UPDATE SET
    value = CASE WHEN agent_run_entries.expires_at <= $5 THEN excluded.value ELSE agent_run_entries.value END,
    expires_at = CASE WHEN agent_run_entries.expires_at <= $5 THEN excluded.expires_at ELSE agent_run_entries.expires_at END`;

/** Stores a value, replacing any, as `put`. */
const REPLACING = `ON CONFLICT (run_id, entry_key) DO UPDATE SET
    value = excluded.value, expires_at = excluded.expires_at`;

/**
 * A claim as one statement (one round trip, one commit): the owner stored unless one is; then,
 * only where the stored owner is the claim's, the claim time stored unless one is (the entry read's
 * time, else the claim's) and the run added to its indexes. Every part sees the table as it was
 * when the statement began, so the entry read is the run's record before this statement (it
 * writes no record). The ordered index key is `orderedKey`'s: the time zero-padded to 15 digits,
 * `/`, the run id.
 *
 * Parameters: run id, owner key, owner, expires at, now, read key, `atOfRead`, `at`, at key,
 * ordered index, plain indexes (text[]).
 */
const CLAIM = `WITH owner AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ${IF_ABSENT}
    RETURNING value
  ), read AS (
    SELECT value FROM agent_run_entries WHERE run_id = $1 AND entry_key = $6 AND expires_at > $5
  ), claimed_at AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $1, $9, COALESCE((SELECT (value::jsonb ->> $7::text)::bigint FROM read), $8::bigint)::text, $4
    FROM owner WHERE owner.value = $3
    ${IF_ABSENT}
    RETURNING value
  ), ordered AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $10, lpad(claimed_at.value, 15, '0') || '/' || $1, '', $4 FROM claimed_at
    ${REPLACING}
  ), indexed AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT indexes.id, $1, '', $4 FROM owner, unnest($11::text[]) AS indexes (id)
    WHERE owner.value = $3
    ${REPLACING}
  )
  SELECT owner.value AS owner, (SELECT value FROM read) AS read,
    (SELECT value FROM claimed_at) AS at
  FROM owner`;

/** Runs a claim on PostgreSQL in one statement (see `CLAIM`). */
export async function claimOnPostgres(
  execute: SqlExecutor,
  claim: RunClaim,
  now: number,
  retentionMs: number,
): Promise<RunClaimed> {
  const [row] = await execute<{ owner: string; read: string | null; at: string | null }>(
    'run_claim',
    CLAIM,
    [
      claim.runId,
      claim.ownerKey,
      claim.owner,
      now + retentionMs,
      now,
      claim.readKey,
      claim.atOfRead,
      claim.at,
      claim.atKey,
      claim.orderedIndex,
      claim.indexes,
    ],
  );
  if (row!.owner !== claim.owner) return { owner: row!.owner, bound: false };
  return { owner: row!.owner, bound: true, read: row!.read ?? undefined, at: Number(row!.at) };
}
