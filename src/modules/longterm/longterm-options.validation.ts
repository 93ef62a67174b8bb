import { OptionChecker } from '../../common/options/option-checker.js';
import { assertDataSourceOption } from '../connections/sql/data-source-option.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { parseLongtermUri } from './longterm-backend.factory.js';
import { MAX_HNSW_DIMENSIONS } from './backends/postgres-pgvector.js';
import { type StemFunction, stemmerProblem } from './recall/text-analyzer.js';

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
  if (options.textSearch !== undefined) {
    const textSearch = check.object(options.textSearch, 'textSearch');
    const nested = check.nested('textSearch');
    nested.keys(textSearch, ['stemmer', 'queryStopWords']);
    const { stemmer } = textSearch;
    if (
      stemmer !== undefined &&
      typeof stemmer !== 'function' &&
      !['english', 'none'].includes(stemmer as string)
    )
      nested.fail(
        'stemmer',
        `must be 'english', 'none' or a function, got ${JSON.stringify(stemmer)}`,
      );
    const problem = typeof stemmer === 'function' && stemmerProblem(stemmer as StemFunction);
    if (problem) nested.fail('stemmer', problem);
    const stopWords = textSearch.queryStopWords;
    if (
      stopWords !== undefined &&
      (!Array.isArray(stopWords) || stopWords.some((word) => typeof word !== 'string'))
    )
      nested.fail('queryStopWords', 'must be an array of strings');
  }
  if (options.recall !== undefined) {
    const recall = check.object(options.recall, 'recall');
    const nested = check.nested('recall');
    nested.keys(recall, ['embedder', 'minSimilarity', 'backfill', 'pgvector']);
    nested.number('minSimilarity', recall.minSimilarity, { min: -1, max: 1, inclusiveMin: true });
    nested.sweep('backfill', recall.backfill);
    checkPgvector(nested, recall.pgvector);
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
