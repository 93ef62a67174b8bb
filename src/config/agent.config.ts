import { registerAs } from '@nestjs/config';
import type { AgentQueueOptions, AgentRunsOptions, ConflictPolicy } from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import {
  type Env,
  readBoolean,
  readChoice,
  readInteger,
  readOptionalInteger,
  readString,
} from './env.js';
import { readRedisUrl } from './redis-url.js';
import { DEFAULT_REDIS_KEY_PREFIX, readRedisKeyPrefix } from './redis.config.js';
import { readChatBackend } from './chat-memory.config.js';

/** The queue drivers the example app can be configured with. */
export const AGENT_QUEUE_DRIVERS = ['inline', 'bull'] as const;

const CONFLICT_POLICIES: readonly ConflictPolicy[] = ['reject', 'retry'];
const FORMATION_CHOICES = ['off', 'model', 'plain-statements'] as const;

/** Tokens of history (with the system prompt and tool schemas) a turn sends by default. */
export const DEFAULT_MEMORY_MAX_TOKENS = 6_000;

/** Longest accepted queue lock or stalled-job interval: one day. */
const MAX_QUEUE_INTERVAL_MS = 86_400_000;

/**
 * The agent's settings from the environment, to merge into `AgentModule.forRoot` options (the app
 * adds `llm` and `tools`).
 */
export interface AgentConfig {
  /** `AGENT_SYSTEM_PROMPT`, if set. */
  systemPrompt?: string;
  /**
   * The shared chat store, sending the newest `AGENT_MEMORY_WINDOW` messages, or what fits in
   * `AGENT_MEMORY_MAX_TOKENS` (6,000 by default; `0`: the whole history).
   */
  memory: 'default' | { window: number } | { maxTokens: number };
  /** `AGENT_MAX_TOOL_ITERATIONS` (10). */
  maxToolIterations: number;
  /** `AGENT_CONFLICT_POLICY` (`reject`). */
  conflictPolicy: ConflictPolicy;
  /** `AGENT_QUEUE` and its settings. */
  queue: AgentQueueOptions;
  /** `AGENT_RUN_LEASE_MS` (10,000): how soon a run whose process died is taken over. */
  runLeaseMs?: number;
  /**
   * `AGENT_RECALL` (`false`): recalled records before the model call, for turns with an entity;
   * `AGENT_RECALL_MESSAGES` (`false`): also index every turn's messages for its entity and recall
   * them (`{ messages: true }`, recall on whatever `AGENT_RECALL` says).
   */
  recall: boolean | { messages: true };
  /** `AGENT_TITLES` (`first-message`): conversation titles from the first message, or `model`. */
  titles: 'first-message' | 'model';
  /**
   * `AGENT_FORMATION`: memories formed from each turn with an entity — `off`, `model` (the agent's
   * model) or `plain-statements` (the offline demo's); unset, the app decides (the demo model with
   * the offline echo model, else off).
   */
  formation?: 'off' | 'model' | 'plain-statements';
  /**
   * `AGENT_PROFILE`: with formation, an entity profile — `demo` (default: `name`, `city` and
   * `employer`, which the demo model fills too) or `off`.
   */
  profile: 'demo' | 'off';
  /**
   * With `CHAT_MEMORY_BACKEND=redis`, the runs beside the history under `REDIS_KEY_PREFIX` (the
   * agent's default keeps them there under `agent-memory:runs:`); else unset, the agent's default.
   */
  runs?: AgentRunsOptions;
}

/**
 * Reads `AGENT_SYSTEM_PROMPT`, `AGENT_MEMORY_WINDOW` (none) or `AGENT_MEMORY_MAX_TOKENS` (6,000),
 * `AGENT_MAX_TOOL_ITERATIONS` (10),
 * `AGENT_CONFLICT_POLICY` (`reject`), `AGENT_RUN_ATTEMPTS` (5), `AGENT_RUN_LEASE_MS` (10 s), `AGENT_QUEUE` (`bull` when
 * `REDIS_URL` is set, else `inline`) and, for Bull, `QUEUE_PREFIX`, `QUEUE_LOCK_DURATION_MS` and
 * `QUEUE_STALLED_INTERVAL_MS`; `AGENT_RECALL` and `AGENT_RECALL_MESSAGES` (`false`); `AGENT_TITLES`
 * (`first-message`); `AGENT_FORMATION` (unset); `AGENT_PROFILE` (`demo`).
 */
export function loadAgentConfig(env: Env = process.env): AgentConfig {
  const systemPrompt = readString(env, 'AGENT_SYSTEM_PROMPT');
  const window = readOptionalInteger(env, 'AGENT_MEMORY_WINDOW', 1, 1_000_000);
  const maxTokens = readOptionalInteger(env, 'AGENT_MEMORY_MAX_TOKENS', 0, 10_000_000);
  if (window !== undefined && maxTokens !== undefined)
    throw new ConfigValidationError(
      'AGENT_MEMORY_MAX_TOKENS',
      'give either AGENT_MEMORY_WINDOW or AGENT_MEMORY_MAX_TOKENS, not both',
    );
  const runLeaseMs = readOptionalInteger(env, 'AGENT_RUN_LEASE_MS', 1_000, MAX_QUEUE_INTERVAL_MS);
  return {
    ...(runLeaseMs === undefined ? {} : { runLeaseMs }),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    memory: memoryPolicy(window, maxTokens),
    maxToolIterations: readInteger(env, 'AGENT_MAX_TOOL_ITERATIONS', 10, 0, 1_000),
    conflictPolicy: readChoice(env, 'AGENT_CONFLICT_POLICY', CONFLICT_POLICIES, 'reject'),
    queue: loadQueue(env),
    recall: readBoolean(env, 'AGENT_RECALL_MESSAGES', false)
      ? { messages: true }
      : readBoolean(env, 'AGENT_RECALL', false),
    titles: readChoice(env, 'AGENT_TITLES', ['first-message', 'model'] as const, 'first-message'),
    ...(env['AGENT_FORMATION'] === undefined
      ? {}
      : { formation: readChoice(env, 'AGENT_FORMATION', FORMATION_CHOICES, 'off') }),
    profile: readChoice(env, 'AGENT_PROFILE', ['demo', 'off'] as const, 'demo'),
    ...runsOnRedis(env),
  };
}

/**
 * The queue's prefix when `QUEUE_PREFIX` is unset: Bull's `bull`, or under a `REDIS_KEY_PREFIX`
 * of the app's own (`staging:` → `staging:bull`), so deployments that share a Redis database by
 * their key prefix do not take each other's runs.
 */
function queuePrefixOf(keyPrefix: string): string | undefined {
  return keyPrefix === DEFAULT_REDIS_KEY_PREFIX ? undefined : `${keyPrefix}bull`;
}

/** The runs' place when the history is on Redis: the same server, under the app's key prefix. */
function runsOnRedis(env: Env): { runs?: AgentRunsOptions } {
  const url = readRedisUrl(env);
  if (readChatBackend(env) !== 'redis' || url === undefined) return {};
  return { runs: { uri: url, keyPrefix: `${readRedisKeyPrefix(env)}runs:` } };
}

/**
 * A turn's cost must not grow with its conversation: without a window, a token budget that fits
 * models with an 8k context (the reply included) is the default; `0` sends the whole history.
 */
function memoryPolicy(window?: number, maxTokens?: number): AgentConfig['memory'] {
  if (window !== undefined) return { window };
  if (maxTokens === 0) return 'default';
  return { maxTokens: maxTokens ?? DEFAULT_MEMORY_MAX_TOKENS };
}

function loadQueue(env: Env): AgentQueueOptions {
  const redisUrl = readRedisUrl(env);
  const driver = readChoice(
    env,
    'AGENT_QUEUE',
    AGENT_QUEUE_DRIVERS,
    redisUrl === undefined ? 'inline' : 'bull',
  );
  const attempts = readInteger(env, 'AGENT_RUN_ATTEMPTS', 5, 1, 100);
  if (driver === 'inline') return { driver, attempts };
  if (redisUrl === undefined)
    throw new ConfigValidationError('AGENT_QUEUE', 'bull needs REDIS_URL, which is unset');
  const prefix = readString(env, 'QUEUE_PREFIX') ?? queuePrefixOf(readRedisKeyPrefix(env));
  const lockDurationMs = readOptionalInteger(
    env,
    'QUEUE_LOCK_DURATION_MS',
    1,
    MAX_QUEUE_INTERVAL_MS,
  );
  const stalledIntervalMs = readOptionalInteger(
    env,
    'QUEUE_STALLED_INTERVAL_MS',
    1,
    MAX_QUEUE_INTERVAL_MS,
  );
  return {
    driver,
    redisUrl,
    attempts,
    ...(prefix === undefined ? {} : { prefix }),
    ...(lockDurationMs === undefined ? {} : { lockDurationMs }),
    ...(stalledIntervalMs === undefined ? {} : { stalledIntervalMs }),
  };
}

/** The `agent` config namespace. */
export const agentConfig = registerAs('agent', () => loadAgentConfig());
