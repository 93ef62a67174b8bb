import type { Logger } from '@nestjs/common';
import type { JsonValue, LongtermSaveInput } from '../../interfaces/longterm-store.interface.js';
import { embedTexts } from './embed-texts.js';
import type { EmbeddingModel } from './embedding-model.interface.js';

/**
 * The records with a vector of the model for each that brings none (in one batch of calls), or the
 * records as they are when the model fails (logged: the background embedding adds them later).
 */
export async function withVectors(
  records: LongtermSaveInput[],
  model: EmbeddingModel,
  textOf: (value: JsonValue, key: string, entityId: string) => string,
  logger: Logger,
): Promise<LongtermSaveInput[]> {
  const todo = records.flatMap((record, i) =>
    record && typeof record === 'object' && record.embedding === undefined ? [i] : [],
  );
  let vectors: number[][];
  try {
    vectors = await embedTexts(
      model,
      todo.map((i) => {
        const { value, key, entityId } = records[i]!;
        return textOf(value as JsonValue, key, entityId);
      }),
    );
  } catch (error) {
    logger.warn(
      `Saving ${todo.length} record(s) without vectors (the background embedding will add them): ${(error as Error).message}`,
    );
    return records;
  }
  const embedded = [...records];
  todo.forEach((index, j) => {
    embedded[index] = { ...records[index]!, embedding: { model: model.id, vector: vectors[j]! } };
  });
  return embedded;
}
