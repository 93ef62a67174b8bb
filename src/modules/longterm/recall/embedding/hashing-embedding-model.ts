import { words } from '../search-text.js';
import { ENGLISH_QUERY_STOP_WORDS } from '../text-analyzer.js';
import type { EmbeddingModel } from './embedding-model.interface.js';

/**
 * Words that say nothing of a text's subject ("she", "does", "the"): left out of its features. The
 * default English list, whatever a store's `textSearch.queryStopWords` says.
 */
const STOP_WORDS = new Set(ENGLISH_QUERY_STOP_WORDS);

/** Settings of {@link HashingEmbeddingModel}. */
export interface HashingEmbeddingOptions {
  /** Vector size (default 256). */
  dimensions?: number;
}

/**
 * An offline, deterministic embedder for tests and demos — **not a semantic model**: it hashes each
 * word (the package's tokenizer) and each word's character trigrams into a signed bag of features
 * (the "hashing trick"), L2-normalized. English function and question words
 * (`ENGLISH_QUERY_STOP_WORDS`: "she", "does", "where"…) are left out unless a text has nothing
 * else, as full-text recall leaves them out of a query: "where does she work?" comes out close to
 * "Ada works at the aquarium", not to every text about "she". Texts that share words or word stems
 * come out close; synonyms do not. Same text, same bytes, on every machine.
 */
export class HashingEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  private readonly dimensions: number;

  constructor(options: HashingEmbeddingOptions = {}) {
    this.dimensions = options.dimensions ?? 256;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 8 || this.dimensions > 4_096)
      throw new RangeError('dimensions must be an integer from 8 to 4096');
    this.id = `hashing-v2-${this.dimensions}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.vector(text));
  }

  private vector(text: string): number[] {
    const vector = new Float64Array(this.dimensions);
    const all = words(text);
    const telling = all.filter((word) => !STOP_WORDS.has(word));
    for (const word of telling.length > 0 ? telling : all) {
      this.add(vector, `w:${word}`, 1);
      const padded = `#${word}#`;
      for (let i = 0; i + 3 <= padded.length; i += 1)
        this.add(vector, `t:${padded.slice(i, i + 3)}`, 0.5);
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    return Array.from(vector, (x) => Math.fround(x / norm));
  }

  private add(vector: Float64Array, feature: string, weight: number): void {
    const hash = fnv1a(feature);
    vector[hash % this.dimensions]! += hash & 0x80000000 ? -weight : weight;
  }
}

/** FNV-1a, 32 bits, over the string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
