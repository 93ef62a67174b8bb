import { InvalidArgumentError } from '../../../../common/errors/invalid-argument.error.js';
import { exceedsUtf8Bytes } from '../../../../common/utf8.js';
import { MAX_EMBEDDING_DIMENSIONS } from './embedding-model.interface.js';

/** A vector as stored: unit length, float32, little-endian bytes ('' bytes: "nothing to embed"). */
export interface StoredEmbedding {
  model: string;
  bytes: Buffer;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Longest embedding model id, in UTF-8 bytes. */
export const MAX_EMBEDDING_MODEL_BYTES = 255;

/**
 * A vector checked (1 to 4,096 finite numbers, not all zero; or none, for a text with nothing to
 * embed), scaled to unit length and packed as float32 little-endian.
 */
export function packEmbedding(model: unknown, vector: unknown, path: string): StoredEmbedding {
  assertModelId(model, `${path}.model`);
  const values = vector as ArrayLike<unknown>;
  if (typeof vector !== 'object' || vector === null || typeof values.length !== 'number')
    throw new InvalidArgumentError(`${path}.vector`, 'must be an array of numbers');
  if (values.length > MAX_EMBEDDING_DIMENSIONS)
    throw new InvalidArgumentError(
      `${path}.vector`,
      `must have at most ${MAX_EMBEDDING_DIMENSIONS} dimensions`,
    );
  let norm = 0;
  for (let i = 0; i < values.length; i += 1) {
    const x = values[i];
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new InvalidArgumentError(`${path}.vector[${i}]`, 'must be a finite number');
    norm += x * x;
  }
  if (values.length > 0 && norm === 0)
    throw new InvalidArgumentError(`${path}.vector`, 'must not be all zeros');
  const bytes = Buffer.alloc(values.length * 4);
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < values.length; i += 1)
    bytes.writeFloatLE((values[i] as number) * scale, i * 4);
  return { model, bytes };
}

/** Checks an embedding model id: a non-empty string of at most 255 UTF-8 bytes. */
export function assertModelId(model: unknown, argument: string): asserts model is string {
  if (
    typeof model !== 'string' ||
    model.length === 0 ||
    exceedsUtf8Bytes(model, MAX_EMBEDDING_MODEL_BYTES)
  )
    throw new InvalidArgumentError(
      argument,
      `must be a non-empty string of at most ${MAX_EMBEDDING_MODEL_BYTES} UTF-8 bytes`,
    );
}

/** The stored bytes as a vector (a view of them, not a copy, when they are aligned). */
export function unpackEmbedding(bytes: Uint8Array): Float32Array {
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0)
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** The dot product of two vectors (their cosine, both being of unit length); 0 when they differ in size. */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}
