import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import { ConversationVersionConflictError } from '../chat-memory/errors/conversation-version-conflict.error.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import type { KernelEngine } from '../kernel/kernel-engine.js';
import type { ToolLoopOutcome } from '../kernel/loop/tool-loop.js';
import { FULL_HISTORY } from '../kernel/loop/history-strategy.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import type { AgentEventBase, AgentEvents } from './interfaces/agent-events.interface.js';
import type {
  AgentRunInput,
  AgentRunResult,
  AgentStreamEvent,
  AgentToolCall,
} from './interfaces/agent-run.interface.js';
import { FirstAttemptOvertakenError, type ReplayCache } from './runs/replay-cache.js';
import { historyAtBase, providerHistory, toolTiers } from './turn-context.js';
import { RecordedSteps } from './runs/recorded-steps.js';
import { assertRunId } from './runs/run-id.js';
import { turnUserMessage } from './turn-message.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import type { FlushResult, LongtermSession } from '../longterm/session/longterm-session.js';
import { type FormedRecall, type TurnRecallSettings, recallBlock } from './turn-recall.js';
import { reserveFormation } from './formation-reservation.js';
import { indexTurn, noteConversation } from './turn-indexing.js';
import { observeLoopEvent } from './turn-events.js';

/** What to do when another turn committed first. */
export type ConflictPolicy = 'reject' | 'retry';

/** Conflict retries of the `'retry'` policy (up to 5). */
export const DEFAULT_MAX_CONFLICT_RETRIES = 5;

/** What the runner is built from. */
export interface AgentRunnerDeps {
  engine: KernelEngine;
  /** `undefined` for `memory: false`: the turn accumulates locally and nothing is stored. */
  provider?: MemoryProvider;
  cache: ReplayCache;
  systemPrompt?: string;
  conflictPolicy: ConflictPolicy;
  maxConflictRetries: number;
  maxToolIterations?: number;
  events?: AgentEvents;
  /** The long-term tier; runs with an `entityId` stage through a session and flush after the commit. */
  longterm?: LongtermMemoryService;
  /** Working memory, handed to tools as `context.workingMemory` for the run's conversation. */
  workingMemory?: WorkingMemoryService;
  /** Recall for runs with an `entityId`: a block of the best-matching records before the model call. */
  recall?: TurnRecallSettings;
  /** With `formation`: the formed memories the recall block lists first. */
  formed?: FormedRecall;
}

/**
 * Runs agent turns, free of Nest wiring. A run records the history version it starts
 * from, accumulates its turn locally with ids `runId:i`, calls `prepare` before each model call,
 * records every model response and tool step in the run cache, and commits the whole turn at once
 * with `expectedVersion = base`. A later attempt of the same run replays the recorded steps, so it
 * produces the same bytes; if the turn was already committed, the commit is a no-op.
 */
export class AgentRunner {
  private readonly logger = new Logger('Agent');

  constructor(private readonly deps: AgentRunnerDeps) {}

  /**
   * Runs one turn to its commit. `onEvent` receives tokens and tool events (and makes calls stream).
   * `firstAttempt`: this attempt started the run (nothing was recorded for it before), so its first
   * scope's steps are stored without reading them first (see `ReplayCache.forFirstAttempt`).
   */
  async run(
    input: AgentRunInput,
    onEvent?: (event: AgentStreamEvent) => void,
    firstAttempt = false,
  ): Promise<AgentRunResult> {
    const { conversationId } = input;
    assertConversationId(conversationId);
    const runId = input.runId ?? randomUUID();
    assertRunId(runId);
    const message = turnUserMessage(input.message, runId);
    const base: AgentEventBase = { runId, conversationId };
    const maxScope = this.deps.conflictPolicy === 'retry' ? this.deps.maxConflictRetries : 0;
    let fresh = firstAttempt ? this.deps.cache.forFirstAttempt() : undefined;
    for (let scope = await (fresh ?? this.deps.cache).latestScope(runId, maxScope); ; scope += 1) {
      this.emit('onTurnStart', { ...base, attempt: scope });
      try {
        // A conflict retry's scope reads what the first scope recorded (its recall, its seq).
        const cache = scope === 0 && fresh ? fresh : this.deps.cache;
        const result = await this.attempt(input, runId, scope, message, cache, onEvent);
        this.emit('onTurnEnd', { ...base, result });
        return result;
      } catch (error) {
        if (error instanceof FirstAttemptOvertakenError && fresh) {
          // Another attempt stored its base first: again from the newest scope it recorded (it may
          // have gone on to a conflict retry's), reading what it stored.
          fresh = undefined;
          scope = (await this.deps.cache.latestScope(runId, maxScope)) - 1;
          continue;
        }
        if (error instanceof ConversationVersionConflictError && scope < maxScope) {
          this.logger.debug(
            `Run ${runId}: another turn committed first; new attempt scope ${scope + 1}`,
          );
          continue;
        }
        this.emit('onTurnError', { ...base, error });
        throw error;
      }
    }
  }

  private async attempt(
    input: AgentRunInput,
    runId: string,
    scope: number,
    message: ChatMessage,
    cache: ReplayCache,
    onEvent?: (event: AgentStreamEvent) => void,
  ): Promise<AgentRunResult> {
    const { provider, engine } = this.deps;
    const { conversationId, entityId } = input;
    // Every attempt of this scope sees the history as it was when the scope began.
    const { history, baseVersion } = await historyAtBase(provider, conversationId, (version) =>
      cache.baseVersion(runId, scope, version),
    );
    const systemPrompts = this.deps.systemPrompt ? [this.deps.systemPrompt] : [];
    // Recalled memory is data users wrote: it goes to the model as a user-role message, never as
    // system text.
    const recalled = await this.recalled(runId, input, message, cache);
    const memoryContext = recalled ? [recalled] : [];
    const toolCalls: AgentToolCall[] = [];
    const events: AgentEventBase = { runId, conversationId };
    const session = await this.openSession(runId, input, cache);
    // Before the model: the conversation's directory entry is stored (a delete from then on fences
    // what the turn indexes; written while the model worked, a delete that came first missed it),
    // and the turn's formation job takes its seq, below any erasure to come.
    const noted = noteConversation(this.deps, session, conversationId);
    if (session && this.deps.formed)
      await reserveFormation(cache, this.deps.formed.memories, runId, session.entityId);
    await noted;
    const views = new Map<string, ReturnType<LongtermSession['forStep']>>();
    const outcome = await engine.runLoop({
      runId,
      attemptKey: scope === 0 ? runId : `${runId}/${scope}`,
      input: [message],
      history: provider
        ? providerHistory(provider, conversationId, history, {
            // The memory context is fixed text of every call, as the system prompts are.
            systemPrompts: [...systemPrompts, ...memoryContext],
            tools: engine.tools.specs,
          })
        : FULL_HISTORY,
      ids: (_round, _index, indexInTurn) => `${runId}:${indexInTurn}`,
      context: { conversationId, entityId },
      systemPrompts,
      memoryContext,
      maxToolIterations: this.deps.maxToolIterations,
      signal: input.signal,
      replay: new RecordedSteps({
        cache,
        runId,
        scope,
        events,
        onEvent,
        session,
        views,
        emit: (name, event) => this.emit(name, event),
      }),
      toolContext: (_call, round, index) => {
        const view = session?.forStep();
        if (view) views.set(`${round}:${index}`, view);
        return toolTiers(this.deps, runId, conversationId, view);
      },
      stream: onEvent !== undefined,
      onEvent: (event) => {
        observeLoopEvent(event, events, toolCalls, (name, event) => this.emit(name, event));
        // The loop never emits a result event itself; the run adds its own at the end.
        if (event.type !== 'result') onEvent?.(event);
      },
    });
    // A run aborted (a Stop) once its model and tools are done is not committed either.
    input.signal?.throwIfAborted();
    await cache.settleBase(runId);
    const { version, flushed } = await this.commit(conversationId, outcome, baseVersion, session);
    await indexTurn(this.deps, { runId, session, conversationId, outcome, baseVersion });
    if (session)
      await cache.recordFlush(runId, {
        entityId: session.entityId,
        seq: session.seq,
        flushed: flushed.flushedKeys,
        refused: flushed.refusedKeys,
      });
    return {
      runId,
      conversationId,
      reply: outcome.reply,
      messages: outcome.messages,
      toolCalls,
      usage: outcome.usage,
      version,
      longterm: { flushed: flushed.flushed, refused: flushed.refused },
    };
  }

  /**
   * The turn's recall block, once per run (recorded in the run cache, so every attempt gives the
   * model the same bytes): one recall before the first model call, none for a run without an entity.
   */
  private async recalled(
    runId: string,
    input: AgentRunInput,
    message: ChatMessage,
    cache: ReplayCache,
  ): Promise<string | undefined> {
    const { longterm, recall } = this.deps;
    if (!recall || !input.entityId || !longterm?.enabled) return undefined;
    const entityId = input.entityId;
    const { value } = await cache.step(runId, 'recall', async () => ({
      block:
        (await recallBlock(
          longterm,
          { entityId, conversationId: input.conversationId, message },
          recall,
          this.deps.formed,
        )) ?? null,
    }));
    return value.block ?? undefined;
  }

  /**
   * The run's long-term session when it has an entity and the tier is on: its `seq` (from the job,
   * else the entity's counter) and `updatedAt` (the run's creation time) are recorded once per run,
   * so every attempt flushes the same bytes.
   */
  private async openSession(
    runId: string,
    input: AgentRunInput,
    cache: ReplayCache,
  ): Promise<LongtermSession | undefined> {
    const { longterm } = this.deps;
    if (!input.entityId || !longterm?.enabled) return undefined;
    const entityId = input.entityId;
    const { value: seq } = await cache.step(
      runId,
      'longterm:seq',
      async () => input.seq ?? (await longterm.nextSeq(entityId)),
    );
    const { value: createdAt } = await cache.step(runId, 'createdAt', async () => Date.now());
    // Vectors the flush computes are steps of the run: a retried run replays them (read first:
    // two rows of one text share a key).
    return longterm.session(entityId, { seq, updatedAt: createdAt }, async (key, compute) => {
      return (await this.deps.cache.step(runId, key, compute)).value;
    });
  }

  /**
   * Appends the whole turn at the version the attempt started from, then flushes the staged
   * long-term rows: only a committed turn's rows are written, and a retry re-flushes the same bytes,
   * which the seq guard converges.
   */
  private async commit(
    conversationId: string,
    outcome: ToolLoopOutcome,
    baseVersion: number,
    session: LongtermSession | undefined,
  ): Promise<{ version: number; flushed: FlushResult }> {
    const { provider } = this.deps;
    // The turn lands right after `baseVersion` (or is already there, when an earlier attempt stored
    // it and this append is a no-op): its last message's position is the version it made.
    if (provider)
      await provider.append(conversationId, outcome.messages, { expectedVersion: baseVersion });
    const version = provider ? baseVersion + outcome.messages.length : 0;
    const flushed = session
      ? await session.flush()
      : { flushed: 0, refused: 0, flushedKeys: [], refusedKeys: [] };
    return { version, flushed };
  }

  private emit<K extends keyof AgentEvents>(
    name: K,
    event: Parameters<NonNullable<AgentEvents[K]>>[0],
  ): void {
    const handler = this.deps.events?.[name] as ((event: unknown) => void) | undefined;
    if (!handler) return;
    try {
      handler.call(this.deps.events, event);
    } catch (error) {
      this.logger.warn(`Agent event handler ${name} threw; the turn goes on: ${String(error)}`);
    }
  }
}
