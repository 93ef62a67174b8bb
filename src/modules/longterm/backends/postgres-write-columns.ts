import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { vectorLiteral } from './postgres-pgvector.js';
import { NEVER_EXPIRES, TOMBSTONE } from './sql-row-format.js';

/**
 * The parameters of the PostgreSQL write statement for a batch, built in one pass: the nine
 * column arrays (entity, key, value, seq, updated_at, expires_at, indexed words as a `tsvector`
 * literal, embedding bytes, embedding model), `now`, with pgvector each vector as a `vector`
 * literal, and last the batch's distinct entities (the statement locks each and reads its erasure
 * mark once).
 */
export function writeParameters(
  rows: readonly PreparedRecord[],
  now: number,
  pgvector: boolean,
): unknown[] {
  const n = rows.length;
  const entities = new Array<string>(n);
  const keys = new Array<string>(n);
  const values = new Array<string>(n);
  const seqs = new Array<number>(n);
  const updated = new Array<number>(n);
  const expires = new Array<number>(n);
  const texts = new Array<string | null>(n);
  const embeddings = new Array<Uint8Array | null>(n);
  const models = new Array<string | null>(n);
  for (let i = 0; i < n; i += 1) {
    const row = rows[i]!;
    entities[i] = row.entityId;
    keys[i] = row.key;
    values[i] = row.value ?? TOMBSTONE;
    seqs[i] = row.seq;
    updated[i] = row.updatedAt;
    expires[i] = row.expiresAt ?? NEVER_EXPIRES;
    texts[i] = row.text === null ? null : tsvectorLiteral(row.text);
    embeddings[i] = row.embedding?.bytes ?? null;
    models[i] = row.embedding?.model ?? null;
  }
  const params: unknown[] = [entities, keys, values, seqs, updated, expires, texts, embeddings];
  params.push(models, now);
  if (pgvector) params.push(embeddings.map(vectorLiteral));
  params.push(distinct(entities));
  return params;
}

function distinct(entities: string[]): string[] {
  const first = entities[0];
  return entities.every((entity) => entity === first) ? [first!] : [...new Set(entities)];
}

/**
 * Indexed words as a `tsvector` literal: each word quoted with its positions (`'cat':2,7`), so
 * PostgreSQL stores exactly the package's words — its own parser would split some again (`1e5x`
 * into `1e5` and `x`). At most 256 positions per word, PostgreSQL's limit; positions above 16,383
 * are written as 16,383.
 */
export function tsvectorLiteral(text: string): string {
  const words = text.split(' ');
  // Each word's positions as text ("2,7"), in first-seen order; counted only for repeated words.
  const positions = new Map<string, string>();
  let counts: Map<string, number> | undefined;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    if (word === '') continue;
    const at = Math.min(i + 1, 16_383);
    const before = positions.get(word);
    if (before === undefined) {
      positions.set(word, String(at));
      continue;
    }
    counts ??= new Map();
    const count = (counts.get(word) ?? 1) + 1;
    if (count > 256) continue;
    counts.set(word, count);
    positions.set(word, `${before},${at}`);
  }
  let literal = '';
  for (const [word, at] of positions) literal += `${literal === '' ? '' : ' '}'${word}':${at}`;
  return literal;
}
