import { KeyedWriteBatcher } from '../../../common/keyed-write-batcher.js';
import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import { POSTGRES } from './sql-run-statements.js';

/** One compare-and-set: `value` where the entry holds `expected` and has not expired. */
export interface ReplaceRow {
  readonly runId: string;
  readonly key: string;
  readonly expected: string;
  readonly value: string;
}

/** The store's clock and retention: a batch takes its time when it is sent. */
export interface ReplaceClock {
  now(): number;
  readonly retentionMs: number;
}

/**
 * Several runs' compare-and-sets in one statement: each row updated only where its entry holds its
 * expected value and has not expired at `now`; answers the positions (from 1) of the rows it
 * updated. By position, not by id: two ids that differ in JavaScript can be one in the database
 * (lone surrogates both arrive as U+FFFD), and then only one of their rows may count as updated.
 * Parameters: values, run ids, keys, expected values (arrays, one element per row), expires at,
 * now.
 */
const REPLACE_MANY = `UPDATE agent_run_entries AS e SET value = v.value, expires_at = $5
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
    WITH ORDINALITY AS v(value, run_id, entry_key, expected, position)
  WHERE e.run_id = v.run_id AND e.entry_key = v.entry_key AND e.value = v.expected
    AND e.expires_at > $6
  RETURNING v.position`;

/** The key of an entry in a batch (run ids and keys hold no NUL: the database refuses it). */
const entryKey = (row: ReplaceRow) => `${row.runId}\u0000${row.key}`;

/**
 * PostgreSQL's compare-and-sets with group commit: one alone at once, the ones that come while it
 * is in flight as one statement (one commit). A batch the server answered with an error (nothing of
 * it stored) is tried again row by row; one whose connection was lost before an answer came fails
 * each of its callers, as a single statement would (it may have committed, and a second try would
 * fail against its own first).
 */
export function postgresReplaces(
  execute: SqlExecutor,
  clock: ReplaceClock,
): (row: ReplaceRow) => Promise<boolean> {
  const batcher = new KeyedWriteBatcher<ReplaceRow, boolean>({
    key: entryKey,
    write: async (rows) => {
      const now = clock.now();
      const expiresAt = now + clock.retentionMs;
      if (rows.length === 1) {
        const [row] = rows as [ReplaceRow];
        const updated = await execute('run_replace_if', POSTGRES.replaceIf, [
          row.value,
          expiresAt,
          row.runId,
          row.key,
          row.expected,
          now,
        ]);
        return [updated.length === 1];
      }
      const updated = await execute<{ position: string | number }>(
        'run_replace_many',
        REPLACE_MANY,
        [
          rows.map((row) => row.value),
          rows.map((row) => row.runId),
          rows.map((row) => row.key),
          rows.map((row) => row.expected),
          expiresAt,
          now,
        ],
      );
      const done = new Set(updated.map((row) => Number(row.position)));
      return rows.map((_, i) => done.has(i + 1));
    },
    rewriteAlone: refusedByServer,
  });
  return (row) => batcher.submit(row);
}

/**
 * True for an error the server answered the statement with (`pg`'s DatabaseError: a SQLSTATE and a
 * severity), FATAL ones included: a statement answered with an error did not commit. False for
 * the client's own (a connection that closed or reset before an answer came): the statement may
 * have committed.
 */
export function refusedByServer(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
