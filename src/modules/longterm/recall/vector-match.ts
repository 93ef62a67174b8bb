import { canonicalJson } from '../../../common/canonical-json.js';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type {
  EmbeddingUpdate,
  VectorSearchOptions,
} from '../interfaces/longterm-store.interface.js';
import {
  assertEntityId,
  assertKey,
  assertLimit,
  assertSeq,
} from '../validation/longterm-arguments.js';
import {
  type StoredEmbedding,
  assertModelId,
  packEmbedding,
  unpackEmbedding,
} from './embedding/embedding-bytes.js';
import { type TextMatch, textMatch } from './text-match.js';

/** A validated vector search: the query vector (unit length), the model, and the filters. */
export interface VectorMatch extends Omit<TextMatch, 'words'> {
  model: string;
  vector: Float32Array;
}

/** Validates a vector search before any I/O. */
export function vectorMatch(vector: ArrayLike<number>, options: VectorSearchOptions): VectorMatch {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'must be an object with the model');
  const packed = packEmbedding(options.model, vector, 'query');
  if (packed.bytes.length === 0)
    throw new InvalidArgumentError('query.vector', 'must not be empty');
  // The filters and limit are checked as a text search checks them (any word will do there).
  const { lower, upper, limit, updatedFrom, updatedTo } = textMatch('x', options);
  return {
    lower,
    upper,
    limit,
    updatedFrom,
    updatedTo,
    model: packed.model,
    vector: unpackEmbedding(packed.bytes),
  };
}

/** A validated embedding update, packed. */
export interface PreparedEmbedding extends StoredEmbedding {
  entityId: string;
  key: string;
  seq: number;
  /** Canonical JSON of the value the vector was made from: the row must still hold it. */
  value: string;
}

/** Validates a batch of embedding updates before any I/O. */
export function prepareEmbeddings(updates: unknown): PreparedEmbedding[] {
  if (!Array.isArray(updates)) throw new InvalidArgumentError('updates', 'must be an array');
  return updates.map((update: EmbeddingUpdate, i) => {
    const path = `updates[${i}]`;
    if (typeof update !== 'object' || update === null)
      throw new InvalidArgumentError(path, 'must be an object');
    assertEntityId(update.entityId, `${path}.entityId`);
    assertKey(update.key, `${path}.key`);
    assertSeq(update.seq, `${path}.seq`);
    let value: string;
    try {
      value = canonicalJson(update.value);
    } catch (error) {
      throw new InvalidArgumentError(`${path}.value`, (error as Error).message);
    }
    return {
      entityId: update.entityId,
      key: update.key,
      seq: update.seq,
      value,
      ...packEmbedding(update.model, update.vector, path),
    };
  });
}

/** Validates `unembedded`'s arguments. */
export function assertUnembeddedPage(model: unknown, limit: unknown, cursor: unknown): void {
  assertModelId(model, 'model');
  assertLimit(limit);
  if (cursor !== undefined && typeof cursor !== 'string')
    throw new InvalidArgumentError('cursor', 'must be a cursor an earlier page gave');
}
