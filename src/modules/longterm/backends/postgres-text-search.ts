import { TOMBSTONE } from './sql-row-format.js';

/**
 * The PostgreSQL text search: words (tsquery text), entity, now, words (array), lower, upper (or
 * NULL), updatedFrom, updatedTo, limit, the entity's record count if known (else NULL: counted here
 * and returned as `n`). BM25 (k1 1.2, b 0.75) over the entity's live records. The GIN index finds
 * the records holding any word — every record that holds a word is among them, so each word's
 * document frequency is counted there, whatever the key and time filters, which only decide which
 * of them may be answered. One pass over their query words gives the frequencies and the scores; the
 * best `limit` keys are ranked, then only their rows are read. `expires_at + 0` keeps the planner off
 * the expiry index, which matches nearly every row. Two approximations spare reading every row: a
 * record's length is its number of distinct words, and the average length is the matched records'.
 */
export function matchesSql(columns: string): string {
  const live = `value <> '${TOMBSTONE}' AND expires_at + 0 > $3`;
  return `WITH hits AS MATERIALIZED (
      SELECT key, search_vector AS v, length(search_vector)::float8 AS length,
        key >= $5 AND ($6::text IS NULL OR key < $6) AND updated_at >= $7 AND updated_at < $8
          AS wanted
      FROM agent_longterm_records
      WHERE entity_id = $2 AND search_vector @@ $1::tsquery AND ${live}),
    terms AS MATERIALIZED (
      SELECT h.key, h.length, h.wanted, u.lexeme AS w,
        coalesce(array_length(u.positions, 1), 1)::float8 AS tf
      FROM hits h, unnest(h.v) u WHERE u.lexeme = ANY ($4::text[])),
    df AS (SELECT w, count(*)::float8 AS df FROM terms GROUP BY w),
    n AS (SELECT coalesce($10::float8, (SELECT count(*)::float8 FROM agent_longterm_records
      WHERE entity_id = $2 AND search_vector IS NOT NULL AND ${live})) AS n),
    average AS (SELECT greatest(avg(length), 1) AS length FROM hits),
    top AS (SELECT t.key, sum(ln(1 + (greatest(n.n, df.df) - df.df + 0.5) / (df.df + 0.5))
        * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.length / a.length))) AS score
      FROM terms t JOIN df ON df.w = t.w, n, average a WHERE t.wanted
      GROUP BY t.key ORDER BY score DESC, t.key LIMIT $9)
    SELECT ${columns
      .split(', ')
      .map((column) => `r.${column}`)
      .join(', ')}, top.score, (SELECT n FROM n) AS n
    FROM top JOIN agent_longterm_records r ON r.entity_id = $2 AND r.key = top.key
    ORDER BY top.score DESC, top.key`;
}
