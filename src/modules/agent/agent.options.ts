import type { SweepOptions } from '../sweeper/sweeper.options.js';
import type { Type } from '@nestjs/common';
import type { Queue } from 'bull';
import type { RedisBackendOptions } from '../connections/redis/redis-backend.options.js';
import type { DataSourceOption } from '../connections/sql/data-source-option.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import type { KernelFilter } from '../kernel/interfaces/kernel-filter.interface.js';
import type { KernelToolDefinition } from '../kernel/interfaces/kernel-tool.interface.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { KernelService } from '../kernel/kernel.service.js';
import type { LlmOptions } from '../llm/llm-options.js';
import type { AgentRecallOption } from './turn-recall.js';
import type { AgentFormationOption } from '../formation/formation.options.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import type { ConflictPolicy } from './agent-runner.js';
import type { AgentEvents } from './interfaces/agent-events.interface.js';
import type { QueueRetryOptions } from './queue/agent-queue.interface.js';
import type { BullAgentQueueSettings } from './queue/bull.agent-queue.js';

/**
 * The agent's memory, validated at bootstrap:
 * - absent or `'default'` → the app's one shared chat store (`CHAT_MEMORY_STORE`), no window;
 * - `{ window: N }` → that shared store, sending the newest N messages (safe window);
 * - `{ store }` → that store, no window; `{ store, window: N }` → that store with a window;
 * - `{ maxTokens: N }` (and `{ store, maxTokens }`) → a token budget (`TokenBudgetMemoryProvider`,
 *   needs `gpt-tokenizer`), reading only the newest messages the budget can hold;
 * - a `MemoryProvider` → used as is;
 * - `false` (or `'none'`) → no memory: the turn accumulates locally and nothing is stored.
 */
export type AgentMemoryOption =
  | 'default'
  | 'none'
  | { window: number; store?: ChatMemoryStore }
  | { store: ChatMemoryStore; window?: number }
  | { maxTokens: number; store?: ChatMemoryStore }
  | MemoryProvider
  | false;

/**
 * Where run records and the run cache live. Default: the backend and connection of the agent's chat
 * store (they are what exactly-once rests on, so they outlive a process whenever the history does);
 * process memory when the agent keeps no history or its store does not say where it lives.
 */
export type AgentRunsOptions = (
  | {
      /** Any backend by URI, as every store module takes it (`sqlite:./runs.sqlite`, `redis://…`). */
      uri: string;
      keyPrefix?: string;
      migrationsRun?: boolean;
    }
  | { backend: 'memory' }
  | RedisBackendOptions
  | { backend: 'sqlite'; path: string; migrationsRun?: boolean }
  | { backend: 'postgres' | 'mysql'; url: string; migrationsRun?: boolean }
  | {
      backend: 'postgres' | 'mysql' | 'sqlite';
      /** An initialized DataSource you own, or in `forRoot` its token (`getDataSourceToken(name)`). */
      dataSource: DataSourceOption;
      migrationsRun?: boolean;
    }
) & {
  /** Retention of run records, jobs and the run cache (default 7 days). */
  retentionMs?: number;
  /**
   * The sweep of expired run entries (task `agent-runs`; default every 10 min, in batches of 1,000
   * until none is left), on `SweeperModule`'s scheduler when the app has one; `false` turns it off.
   * Redis entries expire by themselves; the sweep matters for the SQL and memory stores.
   */
  sweep?: SweepOptions;
};

/** `runs` in the `backend` form, as the agent uses it once a `{ uri }` is read. */
export type AgentRunsBackendOptions = Exclude<AgentRunsOptions, { uri: string }>;

/** The async-run queue: in-process, or Bull on Redis. */
export type AgentQueueOptions =
  | ({ driver: 'inline' } & QueueRetryOptions)
  | ({
      driver: 'bull';
      /** A Bull queue you own (e.g. `@nestjs/bull`'s, from `getQueueToken(name)`); else one is made. */
      queue?: Queue;
      /** Redis for the made queue and the conversation leases (the queue's own client if omitted). */
      redisUrl?: string;
      /** Queue name (default `agent-runs`). */
      name?: string;
      /** Bull key prefix (default `bull`; `QUEUE_PREFIX`). */
      prefix?: string;
      /**
       * How long a worker's lock on a job lasts before another worker may take it over (default
       * 10 s, renewed every half of it). A killed worker's runs are picked up again after at most
       * this plus `stalledIntervalMs`; shorter values recover sooner, but a worker whose event loop
       * is blocked for more than about half of it (a long synchronous step) may lose its job to
       * another worker, which replays it.
       */
      lockDurationMs?: number;
      /** How often workers look for stalled jobs (default: half of `lockDurationMs`). */
      stalledIntervalMs?: number;
    } & BullAgentQueueSettings);

/** Options of `AgentModule.forRoot`; every one is validated at bootstrap. */
export interface AgentModuleOptions {
  /**
   * The model, when the agent builds its own kernel (give this or `kernel`; one is required — the
   * agent never falls back to the offline echo model by itself).
   */
  llm?: LlmOptions | LlmAdapter | Type<LlmAdapter>;
  /** A kernel to run on instead (it must not have the memory filter). */
  kernel?: KernelService;
  /** Filters of the agent's own kernel. */
  filters?: Array<KernelFilter | Type<KernelFilter>>;
  /**
   * Tools of the agent's own kernel: every discovered `@KernelTool()` method, or — when tool names
   * are listed — only the named ones; plain tool objects listed are added either way; `[]` gives
   * the agent no tools.
   */
  tools?: Array<string | KernelToolDefinition>;
  systemPrompt?: string;
  memory?: AgentMemoryOption;
  maxToolIterations?: number;
  /** On a version conflict: `'reject'` (default) or `'retry'` with a fresh base, up to 5 times. */
  conflictPolicy?: ConflictPolicy;
  runs?: AgentRunsOptions;
  /**
   * The lease of a run's holder (default 10 s, renewed every third of it): a run whose process died
   * before settling it is taken over by the next caller with its `Idempotency-Key`, and evicted from
   * its conversation's queue order, once this ran out. Shorter recovers sooner; a process whose
   * event loop or store stalls longer than this may see a run it still executes taken over (the run
   * cache makes both converge on one stored turn).
   */
  runLeaseMs?: number;
  /** Async runs (default: in-process). */
  queue?: AgentQueueOptions;
  events?: AgentEvents;
  /**
   * Use the app's long-term tier (`LongtermMemoryModule`) for runs with an `entityId`: tools stage
   * through `context.longterm`, rows are flushed after the commit (default true; no-op when the tier
   * is off or absent).
   */
  longterm?: boolean;
  /**
   * Recall (off by default): before a run's first model call, the entity's long-term records that
   * best match the user's message (`LongtermMemoryService.recall`) are given to the model as a
   * delimited system message with their keys and dates, within a token budget. `true` for
   * `{ k: 5, maxTokens: 1000, mode: 'hybrid', messages: false }`. With `messages: true` the agent
   * also indexes each committed turn's user and assistant text for the run's entity, and the block
   * recalls the entity's messages of its other conversations as well. Needs the long-term tier and
   * a run `entityId`.
   */
  recall?: AgentRecallOption;
  /**
   * How a conversation gets its title in the directory (`GET /conversations`): `'first-message'`
   * (default) the text of its first user message; `'model'` a short title the agent's model writes
   * once the first turn has committed (one extra model call per conversation, after the turn; the
   * first message stands in if that call fails). A title set through `updateConversation` wins.
   */
  titles?: 'first-message' | 'model';
  /**
   * Memory formation (off by default): after each committed turn of a run with an `entityId`, in
   * the background, facts and preferences are drawn from the user's words, consolidated with the
   * entity's memories (a change supersedes and keeps history; a duplicate changes nothing; only a
   * retraction invalidates) and written exactly once. `true` for the defaults (the agent's own
   * model). Needs the long-term tier. With `recall`, the block lists the formed memories too.
   */
  formation?: AgentFormationOption;
}
