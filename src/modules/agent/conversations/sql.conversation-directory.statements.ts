import { MAX_WRITE_BATCH } from '../../../common/keyed-write-batcher.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import { FILTER_SCAN_BUDGET } from './conversation-directory.interface.js';

/** One touch as the directory's table stores it (`''` for no title or preview). */
export interface TouchRow {
  readonly conversationId: string;
  readonly namespace: string;
  readonly at: number;
  /** `=title` for the default title, else `''`. */
  readonly title: string;
  readonly preview: string;
}

/** The statements of the SQL conversation directory on one dialect. */
export interface DirectorySql {
  /** conversation id, namespace, time, default title (`=title`, or `''`), preview (or `''`) */
  touch: string;
  /**
   * Several touches of distinct conversations in one statement, with the touch's conflict rule per
   * row: the statement for `count` rows, and its parameters (the server dialects; SQLite commits
   * a connection's writes in groups already).
   */
  touchMany?: { sql(count: number): string; params(rows: readonly TouchRow[]): unknown[] };
  /**
   * A page: namespace, then (after a cursor) time, time, conversation id, then the filter's
   * parameters ({@link filterParams}), then the row limit.
   */
  page(after: boolean, filterPairs: number): string;
  /**
   * The last row a filtered page's scan reads (the budget's), when there is one: namespace, then
   * (after a cursor) time, time, conversation id.
   */
  scanEnd(after: boolean): string;
  /** The parameters a metadata filter binds. */
  filterParams(filter: Record<string, string>): unknown[];
  /** The row of a conversation id, locked for the transaction on the server dialects. */
  read: string;
  /** title (`=title`), metadata (JSON, or `''`), conversation id */
  update: string;
  /** conversation id */
  remove: string;
}

const COLUMNS =
  'SELECT conversation_id, last_active_at, title, preview, metadata FROM agent_conversations';
const ORDER = 'ORDER BY last_active_at DESC, conversation_id DESC';

interface DialectParts {
  placeholder: (index: number) => string;
  /** The conflict clause of the touch, given the placeholder of the time. */
  upsert: string;
  /** The rows of a multi-row touch, for `count` rows, and their parameters. */
  touchRows?: { sql(count: number): string; params(rows: readonly TouchRow[]): unknown[] };
  /** The filter's conditions; `next` gives each next placeholder. */
  filter: (pairs: number, next: () => string) => string;
  filterParams: (filter: Record<string, string>) => unknown[];
  /** How the read locks its row. */
  lock: string;
}

function directorySql(parts: DialectParts): DirectorySql {
  const p = parts.placeholder;
  const touchRows = parts.touchRows;
  const pages = new Map<string, string>();
  return {
    touch: `INSERT INTO agent_conversations
      (conversation_id, namespace, last_active_at, title, preview)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}) ${parts.upsert}`,
    touchMany: touchRows && {
      sql: (count: number) => `INSERT INTO agent_conversations
        (conversation_id, namespace, last_active_at, title, preview)
        ${touchRows.sql(count)} ${parts.upsert}`,
      params: touchRows.params,
    },
    page(after, filterPairs) {
      const key = `${after}:${filterPairs}`;
      let sql = pages.get(key);
      if (sql === undefined) {
        let index = 1;
        const next = () => p(index++);
        const conditions = [`namespace = ${next()}`];
        if (after) {
          const [time, sameTime, id] = [next(), next(), next()];
          conditions.push(
            `(last_active_at < ${time} OR (last_active_at = ${sameTime} AND conversation_id < ${id}))`,
          );
        }
        const scanned = `WHERE ${conditions.join(' AND ')} ${ORDER}`;
        // A filtered page reads at most the scan budget of rows, newest first, then filters them:
        // a filter that matches little costs what it costs on the other backends.
        sql =
          filterPairs > 0
            ? `SELECT * FROM (${COLUMNS} ${scanned} LIMIT ${FILTER_SCAN_BUDGET}) scanned
                WHERE ${parts.filter(filterPairs, next)} ${ORDER} LIMIT ${next()}`
            : `${COLUMNS} ${scanned} LIMIT ${next()}`;
        pages.set(key, sql);
      }
      return sql;
    },
    scanEnd(after) {
      const conditions = [`namespace = ${p(1)}`];
      if (after)
        conditions.push(
          `(last_active_at < ${p(2)} OR (last_active_at = ${p(3)} AND conversation_id < ${p(4)}))`,
        );
      return `SELECT conversation_id, last_active_at FROM agent_conversations
        WHERE ${conditions.join(' AND ')} ${ORDER} LIMIT 1 OFFSET ${FILTER_SCAN_BUDGET - 1}`;
    },
    filterParams: parts.filterParams,
    read: `${COLUMNS} WHERE conversation_id = ${p(1)}${parts.lock}`,
    update: `UPDATE agent_conversations SET title = ${p(1)}, metadata = ${p(2)}
      WHERE conversation_id = ${p(3)}`,
    remove: `DELETE FROM agent_conversations WHERE conversation_id = ${p(1)}`,
  };
}

/** The row counts a multi-row `VALUES` touch is sent with (padded up to the next one). */
const VALUES_SHAPES = [2, 4, 8, 16, 32, 64, MAX_WRITE_BATCH];
const valuesShape = (count: number) => VALUES_SHAPES.find((shape) => shape >= count) ?? count;

/**
 * MariaDB's multi-row touch: a `VALUES` list of `?` rows. mysql2 prepares each distinct text on the
 * server (per connection, against the server-wide `max_prepared_stmt_count`), so a batch is padded
 * to one of a few sizes by repeating its last row, which the upsert applies twice to one effect.
 */
const valuesRows: DialectParts['touchRows'] = {
  sql: (count) =>
    `VALUES ${Array.from({ length: valuesShape(count) }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
  params: (rows) =>
    Array.from(
      { length: valuesShape(rows.length) },
      (_, i) => rows[Math.min(i, rows.length - 1)]!,
    ).flatMap((row) => [row.conversationId, row.namespace, row.at, row.title, row.preview]),
};

/** The filter as one JSON object, for a containment test (PostgreSQL `@>`, MariaDB `JSON_CONTAINS`). */
const asJson = (filter: Record<string, string>) => [JSON.stringify(filter)];

/**
 * Each dialect's statements. Columns hold `''` for none; a title is stored as `=` and the title once
 * it is decided (`=` alone: cleared). A touch keeps the newest time, sets the preview unless its
 * time is older than the row's, and sets the title only on a row whose title is undecided. MariaDB evaluates `ON DUPLICATE KEY UPDATE` assignments in order, each seeing the
 * ones before: the preview is decided before the time moves.
 */
/** PostgreSQL's and SQLite's touch conflict clause; `greatest` is the dialect's two-value maximum. */
function onConflictUpsert(greatest: 'GREATEST' | 'max'): string {
  return `ON CONFLICT (conversation_id) DO UPDATE SET
      last_active_at = ${greatest}(agent_conversations.last_active_at, excluded.last_active_at),
      title = CASE WHEN agent_conversations.title = '' THEN excluded.title
        ELSE agent_conversations.title END,
      preview = CASE WHEN excluded.last_active_at >= agent_conversations.last_active_at
        AND excluded.preview <> '' THEN excluded.preview ELSE agent_conversations.preview END`;
}

export const DIRECTORY_SQL: Record<SqlDialect, DirectorySql> = {
  postgres: directorySql({
    placeholder: (i) => `$${i}`,
    upsert: onConflictUpsert('GREATEST'),
    // One statement text whatever the count: the rows as five arrays.
    touchRows: {
      sql: () =>
        'SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[])',
      params: (rows) => [
        rows.map((row) => row.conversationId),
        rows.map((row) => row.namespace),
        rows.map((row) => row.at),
        rows.map((row) => row.title),
        rows.map((row) => row.preview),
      ],
    },
    filter: (_pairs, next) => `NULLIF(metadata, '')::jsonb @> ${next()}::jsonb`,
    filterParams: asJson,
    lock: ' FOR UPDATE',
  }),
  mysql: directorySql({
    placeholder: () => '?',
    upsert: `ON DUPLICATE KEY UPDATE
      preview = IF(VALUES(last_active_at) >= last_active_at AND VALUES(preview) <> '',
        VALUES(preview), preview),
      title = IF(title = '', VALUES(title), title),
      last_active_at = GREATEST(last_active_at, VALUES(last_active_at))`,
    touchRows: valuesRows,
    filter: (_pairs, next) => `JSON_CONTAINS(NULLIF(metadata, ''), ${next()})`,
    filterParams: asJson,
    lock: ' FOR UPDATE',
  }),
  sqlite: directorySql({
    placeholder: () => '?',
    upsert: onConflictUpsert('max'),
    // One `json_extract(metadata, '$."key"') = value` per pair (keys hold no `"`).
    filter: (pairs, next) =>
      Array.from(
        { length: pairs },
        () => `json_extract(NULLIF(metadata, ''), ${next()}) = ${next()}`,
      ).join(' AND '),
    filterParams: (filter) =>
      Object.entries(filter).flatMap(([key, value]) => [`$."${key}"`, value]),
    lock: '',
  }),
};
