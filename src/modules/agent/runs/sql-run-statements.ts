/** The run store's statements in one SQL dialect. */
export interface DialectSql {
  /** Inserts, or revives an expired row; returns the value stored (PostgreSQL and SQLite, one statement). */
  putIfAbsent: string;
  get: string;
  put: string;
  /** value, expires at, run id, key, expected, now */
  replaceIf: string;
  /** run id, key */
  removeEntry: string;
  /** run id, now */
  keys: string;
  /** run id, now */
  entries: string;
  /** index, now, before key, limit: newest first, through the primary key */
  orderedPage: string;
  sweep: string;
}

/**
 * PostgreSQL's conflict clause of an insert that stores its value unless a live one is there (an
 * expired one is replaced); `now` is the parameter that holds the time.
 */
function postgresIfAbsent(now: string): string {
  return `ON CONFLICT (run_id, entry_key) DO UPDATE SET
      value = CASE WHEN agent_run_entries.expires_at <= ${now} THEN excluded.value ELSE agent_run_entries.value END,
      expires_at = CASE WHEN agent_run_entries.expires_at <= ${now} THEN excluded.expires_at ELSE agent_run_entries.expires_at END`;
}

/** {@link postgresIfAbsent} with `$5` as now. */
export const POSTGRES_IF_ABSENT = postgresIfAbsent('$5');

/** PostgreSQL's conflict clause of an insert that replaces what is there. */
export const POSTGRES_REPLACING = `ON CONFLICT (run_id, entry_key) DO UPDATE SET
      value = excluded.value, expires_at = excluded.expires_at`;

/**
 * PostgreSQL's guarded pair in one statement: run id, guard key, guard value, key, value, expires
 * at, now. The entry is inserted only from the guard's row whose stored value is the guard's own.
 */
export const POSTGRES_PUT_IF_ABSENT_GUARDED = `WITH guard AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $6)
    ${postgresIfAbsent('$7')}
    RETURNING value
  ), entry AS (
    INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at)
    SELECT $1, $4, $5, $6 FROM guard WHERE guard.value = $3
    ${postgresIfAbsent('$7')}
    RETURNING value
  )
  SELECT (SELECT value FROM guard) AS guard, (SELECT value FROM entry) AS entry`;

/** PostgreSQL's. */
export const POSTGRES: DialectSql = {
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ${POSTGRES_IF_ABSENT}
    RETURNING value`,
  get: 'SELECT value FROM agent_run_entries WHERE run_id = $1 AND entry_key = $2 AND expires_at > $3',
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ${POSTGRES_REPLACING}`,
  replaceIf: `UPDATE agent_run_entries SET value = $1, expires_at = $2
    WHERE run_id = $3 AND entry_key = $4 AND value = $5 AND expires_at > $6 RETURNING 1`,
  removeEntry: 'DELETE FROM agent_run_entries WHERE run_id = $1 AND entry_key = $2',
  keys: 'SELECT entry_key FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2',
  entries: 'SELECT entry_key, value FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2',
  orderedPage: `SELECT entry_key FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2
    AND entry_key < $3 ORDER BY entry_key DESC LIMIT $4`,
  sweep: `DELETE FROM agent_run_entries WHERE ctid IN (
    SELECT ctid FROM agent_run_entries WHERE expires_at <= $1 LIMIT $2) RETURNING 1`,
};

/** The statements MariaDB/MySQL and SQLite write alike (`?` parameters). */
const WITH_QUESTION_MARKS = {
  get: 'SELECT value FROM agent_run_entries WHERE run_id = ? AND entry_key = ? AND expires_at > ?',
  /** value, expires at, run id, key, expected, now (MariaDB's value column compares bytes). */
  replaceIf: `UPDATE agent_run_entries SET value = ?, expires_at = ?
    WHERE run_id = ? AND entry_key = ? AND value = ? AND expires_at > ?`,
  removeEntry: 'DELETE FROM agent_run_entries WHERE run_id = ? AND entry_key = ?',
  keys: 'SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  entries: 'SELECT entry_key, value FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  orderedPage: `SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?
    AND entry_key < ? ORDER BY entry_key DESC LIMIT ?`,
} as const;

/** MariaDB's and MySQL's. */
export const MYSQL: DialectSql = {
  // MySQL evaluates the assignments left to right: `value` is decided before `expires_at` changes.
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON DUPLICATE KEY UPDATE value = IF(expires_at <= ?, VALUES(value), value),
      expires_at = IF(expires_at <= ?, VALUES(expires_at), expires_at)`,
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON DUPLICATE KEY UPDATE value = VALUES(value), expires_at = VALUES(expires_at)`,
  ...WITH_QUESTION_MARKS,
  sweep: 'DELETE FROM agent_run_entries WHERE expires_at <= ? LIMIT ?',
};

/** SQLite's. */
export const SQLITE: DialectSql = {
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET
      value = CASE WHEN agent_run_entries.expires_at <= ? THEN excluded.value ELSE agent_run_entries.value END,
      expires_at = CASE WHEN agent_run_entries.expires_at <= ? THEN excluded.expires_at ELSE agent_run_entries.expires_at END
    RETURNING value`,
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  ...WITH_QUESTION_MARKS,
  sweep: `DELETE FROM agent_run_entries WHERE rowid IN (
    SELECT rowid FROM agent_run_entries WHERE expires_at <= ? LIMIT ?)`,
};
