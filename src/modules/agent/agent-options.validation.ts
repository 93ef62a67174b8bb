import { serverUrlProblem } from '../connections/server-url.js';
import { assertDataSourceOption } from '../connections/sql/data-source-option.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import { checkFormation } from '../formation/formation.options.js';
import { storeOptionsFromUri } from '../connections/store-uri.js';
import type { AgentMemoryOption, AgentModuleOptions } from './agent.options.js';

const KEYS = [
  'llm',
  'kernel',
  'filters',
  'tools',
  'systemPrompt',
  'memory',
  'maxToolIterations',
  'conflictPolicy',
  'runs',
  'runLeaseMs',
  'queue',
  'events',
  'longterm',
  'recall',
  'titles',
  'formation',
] as const;

const RUN_COMMON = ['backend', 'retentionMs', 'sweep'];
const RUN_KEYS: Record<string, readonly string[]> = {
  memory: RUN_COMMON,
  redis: [...RUN_COMMON, 'url', 'client', 'keyPrefix'],
  sqlite: [...RUN_COMMON, 'path', 'dataSource', 'migrationsRun'],
  postgres: [...RUN_COMMON, 'url', 'dataSource', 'migrationsRun'],
  mysql: [...RUN_COMMON, 'url', 'dataSource', 'migrationsRun'],
};

const QUEUE_RETRY = ['driver', 'attempts', 'backoffMs'];
const QUEUE_KEYS: Record<string, readonly string[]> = {
  inline: QUEUE_RETRY,
  bull: [
    ...QUEUE_RETRY,
    'queue',
    'redisUrl',
    'name',
    'prefix',
    'lockDurationMs',
    'stalledIntervalMs',
    'concurrency',
    'leaseMs',
    'worker',
    'waitForTurnMs',
    'maxParkDelayMs',
  ],
};

/**
 * Checks `AgentModule` options at bootstrap and returns them with the memory option normalized
 * (`'none'` → `false`), or throws `InvalidModuleOptionsError` naming the option at fault. The model
 * is required: an agent never falls back to the offline echo model in silence.
 */
export function validateAgentOptions(value: unknown): AgentModuleOptions {
  const check = new OptionChecker('AgentModule');
  const options = check.object(value);
  check.keys(options, KEYS);
  if (options.llm === undefined && options.kernel === undefined)
    check.fail(
      'llm',
      "is required: { model: <an AI SDK model> }, { provider: 'openai' | 'anthropic' | 'openai-compatible' | 'echo', … }, an LlmAdapter (instance or class), or give a kernel",
    );
  if (options.llm !== undefined && options.kernel !== undefined)
    check.fail('kernel', 'give either llm or kernel, not both');
  for (const list of ['filters', 'tools'] as const)
    if (options[list] !== undefined && !Array.isArray(options[list]))
      check.fail(list, 'must be an array');
  check.string('systemPrompt', options.systemPrompt, true);
  check.integer('maxToolIterations', options.maxToolIterations, 0);
  check.integer('runLeaseMs', options.runLeaseMs, 100);
  check.oneOf('conflictPolicy', options.conflictPolicy, ['reject', 'retry']);
  check.oneOf('titles', options.titles, ['first-message', 'model']);
  check.boolean('longterm', options.longterm);
  if (options.recall !== undefined && typeof options.recall !== 'boolean') {
    const recall = check.object(options.recall, 'recall');
    const nested = check.nested('recall');
    nested.keys(recall, ['k', 'maxTokens', 'mode', 'messages']);
    nested.boolean('messages', recall.messages);
    nested.integer('k', recall.k, 1, 100);
    nested.integer('maxTokens', recall.maxTokens, 1);
    if (
      recall.mode !== undefined &&
      !['hybrid', 'lexical', 'vector'].includes(recall.mode as string)
    )
      nested.fail('mode', 'must be hybrid, lexical or vector');
  }
  checkFormation(check, options.formation);
  if (options.events !== undefined) check.object(options.events, 'events');
  const runs =
    options.runs === undefined
      ? undefined
      : checkRuns(check.nested('runs'), fromUri(check, check.object(options.runs, 'runs')));
  if (options.queue !== undefined)
    checkQueue(check.nested('queue'), check.object(options.queue, 'queue'));
  return {
    ...options,
    memory: normalizeMemory(check, options.memory),
    ...(runs ? { runs } : {}),
  } as AgentModuleOptions;
}

/**
 * The five memory forms (and `'none'`, the same as `false`), checked: an object that is not a
 * `MemoryProvider` may hold only `window` or `maxTokens`, and `store`, each valid.
 */
function normalizeMemory(check: OptionChecker, memory: unknown): AgentMemoryOption | undefined {
  if (memory === undefined || memory === 'default' || memory === false) return memory;
  if (memory === 'none') return false;
  const forms =
    "must be 'default', 'none' or false, { window }, { maxTokens }, { store } (with window or maxTokens) or a MemoryProvider";
  if (typeof memory !== 'object' || memory === null || Array.isArray(memory))
    return check.fail('memory', `${forms}, got ${memory === null ? 'null' : typeof memory}`);
  if (isMemoryProvider(memory)) return memory as AgentMemoryOption;
  const form = memory as Record<string, unknown>;
  const nested = check.nested('memory');
  nested.keys(form, ['window', 'store', 'maxTokens']);
  if ('window' in form && 'maxTokens' in form)
    nested.fail('maxTokens', 'give either window or maxTokens, not both');
  if (
    'maxTokens' in form &&
    !(Number.isSafeInteger(form.maxTokens) && (form.maxTokens as number) > 0)
  )
    nested.fail('maxTokens', `must be a positive integer, got ${String(form.maxTokens)}`);
  if (Object.keys(form).length === 0) return check.fail('memory', `${forms}, got {}`);
  if ('window' in form && !isWindow(form.window))
    nested.fail('window', `must be a positive integer or Infinity, got ${String(form.window)}`);
  if ('store' in form && !isChatStore(form.store))
    nested.fail('store', 'must be a ChatMemoryStore (get, add, clear, tail, range, version)');
  return memory as AgentMemoryOption;
}

/** The `{ uri }` form of `runs` as the `backend` form it names (the other keys kept). */
function fromUri(check: OptionChecker, runs: Record<string, unknown>): Record<string, unknown> {
  if (!('uri' in runs)) return runs;
  if ('backend' in runs) check.nested('runs').fail('uri', 'give either uri or backend, not both');
  const { uri, ...rest } = runs;
  return {
    ...storeOptionsFromUri(uri, { moduleName: 'AgentModule', option: 'runs.uri' }),
    ...rest,
  };
}

function checkRuns(check: OptionChecker, runs: Record<string, unknown>): Record<string, unknown> {
  check.required('backend', runs.backend);
  check.oneOf('backend', runs.backend, Object.keys(RUN_KEYS));
  check.keys(runs, RUN_KEYS[runs.backend as string]!);
  const source = runs.backend === 'sqlite' ? 'path' : 'url';
  if (runs.backend !== 'memory' && runs.dataSource === undefined && runs.client === undefined) {
    check.string(source, runs[source] ?? '');
    if (source === 'url') {
      const problem = serverUrlProblem(
        runs.url as string,
        runs.backend as 'postgres' | 'mysql' | 'redis',
      );
      if (problem) check.fail('url', problem);
    }
  }
  assertDataSourceOption(runs.dataSource, 'AgentModule', 'runs.dataSource');
  check.integer('retentionMs', runs.retentionMs, 1);
  check.boolean('migrationsRun', runs.migrationsRun);
  check.string('keyPrefix', runs.keyPrefix);
  check.sweep('sweep', runs.sweep);
  return runs;
}

function checkQueue(check: OptionChecker, queue: Record<string, unknown>): void {
  check.required('driver', queue.driver);
  check.oneOf('driver', queue.driver, Object.keys(QUEUE_KEYS));
  check.keys(queue, QUEUE_KEYS[queue.driver as string]!);
  check.integer('attempts', queue.attempts, 1);
  check.integer('backoffMs', queue.backoffMs, 0);
  for (const name of ['lockDurationMs', 'stalledIntervalMs', 'leaseMs', 'maxParkDelayMs'])
    check.integer(name, queue[name], 1);
  check.integer('waitForTurnMs', queue.waitForTurnMs, 0);
  check.integer('concurrency', queue.concurrency, 1);
  check.boolean('worker', queue.worker);
  check.string('redisUrl', queue.redisUrl);
  check.string('name', queue.name);
  check.string('prefix', queue.prefix);
  if (queue.driver === 'bull' && queue.queue === undefined && queue.redisUrl === undefined)
    check.fail('redisUrl', 'is required unless a Bull queue is given');
}

function isWindow(value: unknown): boolean {
  return value === Infinity || (Number.isSafeInteger(value) && (value as number) > 0);
}

/** True for an object that implements `MemoryProvider`. */
export function isMemoryProvider(value: unknown): boolean {
  const candidate = value as Record<string, unknown> | null;
  return ['prepare', 'history', 'append'].every(
    (method) => typeof candidate?.[method] === 'function',
  );
}

function isChatStore(value: unknown): boolean {
  const candidate = value as Record<string, unknown> | null;
  return ['get', 'add', 'clear', 'tail', 'range', 'version'].every(
    (method) => typeof candidate?.[method] === 'function',
  );
}
