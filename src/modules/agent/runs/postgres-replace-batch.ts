import { KeyedWriteBatcher } from '../../../common/keyed-write-batcher.js';
import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import { POSTGRES } from './sql-run-statements.js';

/** One compare-and-set: `value` (expiring at `expiresAt`) where the entry holds `expected` at `now`. */
export interface ReplaceRow {
  readonly runId: string;
  readonly key: string;
  readonly expected: string;
  readonly value: string;
  readonly expiresAt: number;
  readonly now: number;
}

/**
 * Several runs' compare-and-sets in one statement: each row updated only where its entry holds its
 * expected value and has not expired; answers the entries it updated. Parameters: values, expiry
 * times, run ids, keys, expected values, nows (arrays, one element per row, distinct entries).
 */
const REPLACE_MANY = `UPDATE agent_run_entries AS e SET value = v.value, expires_at = v.expires_at
  FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[])
    AS v(value, expires_at, run_id, entry_key, expected, now)
  WHERE e.run_id = v.run_id AND e.entry_key = v.entry_key AND e.value = v.expected
    AND e.expires_at > v.now
  RETURNING e.run_id, e.entry_key`;

/** The key of an entry in a batch (run ids and keys hold no NUL). */
const entryKey = (runId: string, key: string) => `${runId}\u0000${key}`;

/**
 * PostgreSQL's compare-and-sets with group commit: one alone at once, the ones that come while it
 * is in flight as one statement (one commit). A batch the server refused (nothing of it stored) is
 * tried again row by row; one lost with its connection fails each of its callers, as a single
 * statement would (it may have committed, and a second try would fail against its own first).
 */
export function postgresReplaces(execute: SqlExecutor): (row: ReplaceRow) => Promise<boolean> {
  const batcher = new KeyedWriteBatcher<ReplaceRow, boolean>({
    key: (row) => entryKey(row.runId, row.key),
    write: async (rows) => {
      if (rows.length === 1) {
        const [row] = rows as [ReplaceRow];
        const updated = await execute('run_replace_if', POSTGRES.replaceIf, [
          row.value,
          row.expiresAt,
          row.runId,
          row.key,
          row.expected,
          row.now,
        ]);
        return [updated.length === 1];
      }
      const updated = await execute<{ run_id: string; entry_key: string }>(
        'run_replace_many',
        REPLACE_MANY,
        [
          rows.map((row) => row.value),
          rows.map((row) => row.expiresAt),
          rows.map((row) => row.runId),
          rows.map((row) => row.key),
          rows.map((row) => row.expected),
          rows.map((row) => row.now),
        ],
      );
      const done = new Set(updated.map((row) => entryKey(row.run_id, row.entry_key)));
      return rows.map((row) => done.has(entryKey(row.runId, row.key)));
    },
    rewriteAlone: refusedByServer,
  });
  return (row) => batcher.submit(row);
}

/** True for an error the server answered (`pg`'s DatabaseError: a SQLSTATE and a severity). */
function refusedByServer(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
