import { words } from '../search-text.js';
import type { WordVectorTable } from './word-vector-file.js';

/** Most query words a document is scored by (the query's first ones, stop words aside). */
export const MAX_SOFT_MATCH_QUERY_WORDS = 16;
/**
 * Most distinct document words of a call compared by their vectors (the first ones, in the
 * documents' order); later words match only themselves. 50 conversation turns hold about 1,500.
 */
export const MAX_SOFT_MATCH_WORDS = 8_000;

/**
 * Each document's score against the query words, from 0 to 1: the weighted mean, over the query
 * words, of the document's best match for each — 1 for the word itself, else the highest cosine of
 * a document word's vector with the query word's (0 at worst, and for words without a vector) —
 * each query word weighed by how few of the documents hold it (`ln(1 + n / (1 + holding))`), so a
 * name most of them share counts less than the word that tells them apart. Each distinct document
 * word's similarity to each query word is computed once per call: the work is at most
 * 16 query words × 8,000 document words × dimensions (at worst about 0.2 s here, for 200 texts of
 * 2,000 characters of distinct words).
 */
export function softMatchScores(
  table: WordVectorTable,
  queryWords: readonly string[],
  documents: readonly string[],
): number[] {
  const { vectors, dimensions } = table;
  // Every distinct document word gets an index; each document is the list of its words' indexes.
  const index = new Map<string, number>();
  const held = documents.map((document) => {
    const mine = new Set<number>();
    for (const word of words(document)) {
      let at = index.get(word);
      if (at === undefined) index.set(word, (at = index.size));
      mine.add(at);
    }
    return [...mine];
  });
  // Past the first MAX_SOFT_MATCH_WORDS distinct words, a word matches only itself.
  const rows = new Int32Array(index.size).fill(-1);
  for (const [word, at] of index)
    if (at < MAX_SOFT_MATCH_WORDS) rows[at] = table.rows.get(word) ?? -1;
  const query = queryWords.slice(0, MAX_SOFT_MATCH_QUERY_WORDS);
  // similarity[q × words + w]: query word q against document word w.
  const similarity = new Float32Array(query.length * index.size);
  const weights = query.map((word, q) => {
    const self = index.get(word);
    const row = table.rows.get(word);
    if (row !== undefined) {
      const base = row * dimensions;
      for (let w = 0; w < index.size; w += 1) {
        const other = rows[w]!;
        if (other < 0) continue;
        let dot = 0;
        const offset = other * dimensions;
        for (let i = 0; i < dimensions; i += 1) dot += vectors[base + i]! * vectors[offset + i]!;
        if (dot > 0) similarity[q * index.size + w] = dot;
      }
    }
    if (self !== undefined) similarity[q * index.size + self] = 1;
    const holding = self === undefined ? 0 : held.filter((ids) => ids.includes(self)).length;
    return Math.log(1 + documents.length / (1 + holding));
  });
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return held.map((ids) => {
    if (total === 0) return 0;
    let sum = 0;
    query.forEach((_, q) => {
      let best = 0;
      for (const w of ids) best = Math.max(best, similarity[q * index.size + w]!);
      sum += weights[q]! * best;
    });
    return sum / total;
  });
}
