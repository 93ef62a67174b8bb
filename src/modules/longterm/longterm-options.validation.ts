import { OptionChecker } from '../../common/options/option-checker.js';
import { assertDataSourceOption } from '../connections/sql/data-source-option.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { parseLongtermUri } from './longterm-backend.factory.js';
import { MAX_HNSW_DIMENSIONS } from './backends/postgres-pgvector.js';
import { type TextAnalysisOptions, analyzerFor } from './recall/text-analyzer.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { MAX_TEXT_SEARCH_LIMIT } from './interfaces/longterm-store.interface.js';

const KEYS = [
  'uri',
  'dataSource',
  'defaultTtlMs',
  'tombstoneTtlMs',
  'maxValueBytes',
  'keyPrefix',
  'sweep',
  'migrationsRun',
  'now',
  'recordText',
  'textSearch',
  'recall',
] as const;

/**
 * Checks `LongtermMemoryModule` options at bootstrap (the URI is parsed without loading a driver)
 * and returns them typed, or throws `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateLongtermOptions(value: unknown): LongtermMemoryModuleOptions {
  const check = new OptionChecker('LongtermMemoryModule');
  const options = check.object(value ?? {});
  check.keys(options, KEYS);
  parseLongtermUri(options.uri);
  if (options.dataSource !== undefined && options.uri !== undefined && options.uri !== '')
    check.fail('dataSource', 'give either uri or dataSource, not both');
  assertDataSourceOption(options.dataSource, 'LongtermMemoryModule', 'dataSource');
  check.integer('defaultTtlMs', options.defaultTtlMs, 1);
  check.integer('tombstoneTtlMs', options.tombstoneTtlMs, 1);
  check.integer('maxValueBytes', options.maxValueBytes, 1);
  check.string('keyPrefix', options.keyPrefix);
  if (typeof options.keyPrefix === 'string' && /[{}]/.test(options.keyPrefix))
    check.fail('keyPrefix', 'must not hold "{" or "}" (they would break the cluster hash tag)');
  check.sweep('sweep', options.sweep);
  check.boolean('migrationsRun', options.migrationsRun);
  check.function('now', options.now);
  check.function('recordText', options.recordText);
  if (options.textSearch !== undefined && options.textSearch !== false) {
    if (typeof options.textSearch !== 'object' || options.textSearch === null)
      check.fail('textSearch', 'must be an object ({ stemmer, queryStopWords }) or false');
    const textSearch = check.object(options.textSearch, 'textSearch');
    check.nested('textSearch').keys(textSearch, ['stemmer', 'queryStopWords']);
    // The analyzer checks its own options (a custom stemmer is tried once); the module reuses it.
    try {
      analyzerFor(textSearch as TextAnalysisOptions);
    } catch (error) {
      if (error instanceof InvalidArgumentError) check.fail(error.argument, error.problem);
      throw error;
    }
  }
  if (options.recall !== undefined) {
    const recall = check.object(options.recall, 'recall');
    const nested = check.nested('recall');
    nested.keys(recall, ['embedder', 'minSimilarity', 'backfill', 'pgvector', 'rerank']);
    nested.number('minSimilarity', recall.minSimilarity, { min: -1, max: 1, inclusiveMin: true });
    nested.sweep('backfill', recall.backfill);
    checkPgvector(nested, recall.pgvector);
    checkRerank(nested, recall.rerank);
  }
  return options as LongtermMemoryModuleOptions;
}

/** `recall.pgvector`: a boolean, or `{ hnsw: { dimensions } }` with 1–2,000 dimensions. */
function checkPgvector(check: OptionChecker, value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  const pgvector = check.object(value, 'pgvector');
  const nested = check.nested('pgvector');
  nested.keys(pgvector, ['hnsw']);
  const hnsw = nested.object(pgvector.hnsw, 'hnsw');
  const inner = nested.nested('hnsw');
  inner.keys(hnsw, ['dimensions']);
  if (hnsw.dimensions === undefined) inner.fail('dimensions', 'is required');
  inner.integer('dimensions', hnsw.dimensions, 1, MAX_HNSW_DIMENSIONS);
}

/** `recall.rerank`: `{ model: { id, rerank() }, depth?: 1–100, weight?: 0–1, timeoutMs? }`. */
function checkRerank(check: OptionChecker, value: unknown): void {
  if (value === undefined) return;
  const rerank = check.object(value, 'rerank');
  const nested = check.nested('rerank');
  nested.keys(rerank, ['model', 'depth', 'weight', 'timeoutMs']);
  const model = rerank.model as { id?: unknown; rerank?: unknown } | undefined;
  if (typeof model !== 'object' || model === null || typeof model.rerank !== 'function')
    nested.fail(
      'model',
      'must be a RerankingModel ({ id, rerank }): a WordVectorRerankingModel, or aiSdkRerankingModel(model)',
    );
  nested.required('model.id', model?.id);
  nested.string('model.id', model?.id);
  nested.integer('depth', rerank.depth, 1, MAX_TEXT_SEARCH_LIMIT);
  nested.number('weight', rerank.weight, { min: 0, max: 1, inclusiveMin: true });
  nested.integer('timeoutMs', rerank.timeoutMs, 1, 600_000);
}
