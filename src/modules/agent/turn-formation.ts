import { Logger } from '@nestjs/common';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { contentText } from '../../common/messages/content-parts.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import {
  type ResolvedFormation,
  isFormationModel,
  resolveFormation,
} from '../formation/formation.options.js';
import { LlmFormationModel } from '../formation/llm.formation-model.js';
import { PlainStatementsFormationModel } from '../formation/plain-statements.formation-model.js';
import type { KernelEngine } from '../kernel/kernel-engine.js';
import { createLlmAdapter } from '../llm/create-llm-adapter.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { LlmOptions } from '../llm/llm-options.js';
import type { AgentModuleOptions } from './agent.options.js';
import { FormedMemories } from '../formation/formed-memories.js';
import type { MemoryFormationModel } from '../formation/formation-model.interface.js';
import { MemoryFormation } from '../formation/memory-formation.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { words } from '../longterm/recall/search-text.js';
import type { AgentRunResult } from './interfaces/agent-run.interface.js';
import type { ReplayCache } from './runs/replay-cache.js';

/** The version of the formation a job id names: a new version forms a turn again. */
const FORMATION_VERSION = 'formation-v1';
/** Wait before the second attempt; each later one waits four times longer. */
const FIRST_BACKOFF_MS = 1_000;

/**
 * Memory formation after each committed turn of a run with an entity (`formation`): the turn's
 * user and assistant text become a formation job, run in the background of this process — never
 * on the turn's latency —, retried with backoff, and recorded as failed when its attempts are
 * spent. The job's seq and time are recorded in the run cache when it is first queued, and each
 * model answer too, so an attempt after a crash writes exactly what the first would have.
 */
export class TurnFormation {
  private readonly logger = new Logger('Agent');
  private readonly pending = new Set<Promise<void>>();
  private readonly formation: MemoryFormation;
  private stopping = false;
  /** Jobs running now, and those waiting for a slot (FIFO). */
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** The entity's formed memories (what the recall block and the HTTP routes read). */
  readonly memories: FormedMemories;

  constructor(
    private readonly longterm: LongtermMemoryService,
    private readonly cache: ReplayCache,
    model: MemoryFormationModel,
    private readonly resolved: ResolvedFormation,
  ) {
    this.memories = new FormedMemories(longterm);
    this.formation = new MemoryFormation(
      this.memories,
      model,
      async (jobId, step, compute) => (await cache.step(jobId, step, compute)).value,
      resolved.settings,
    );
  }

  /** A turn committed: forms memories of its entity in the background (never throws). */
  afterCommit(turn: { entityId?: string; conversationId: string; result: AgentRunResult }): void {
    const { entityId } = turn;
    if (!entityId || !this.longterm.enabled || this.stopping) return;
    const work = (
      this.pending.size >= this.resolved.maxPending
        ? this.refuse(entityId, turn.conversationId, turn.result)
        : this.form(entityId, turn.conversationId, turn.result)
    )
      .catch((error: unknown) =>
        this.logger.warn(
          `Memory formation of run ${turn.result.runId} failed: ${(error as Error).message}`,
        ),
      )
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Resolves once the jobs begun are done; no attempt starts after this is called (shutdown). */
  async settle(): Promise<void> {
    this.stopping = true;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Runs `work` once fewer than `concurrency` jobs run (a slot is not held during a backoff). */
  private async inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.resolved.concurrency)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Too many jobs wait: this turn's is noted as failed, not queued. */
  private async refuse(entityId: string, conversationId: string, result: AgentRunResult) {
    const jobId = `${result.runId}/${FORMATION_VERSION}`;
    const seq = await this.memories.nextSeq(entityId);
    const job = { jobId, conversationId, runId: result.runId, seq, observedAt: Date.now() };
    const error = `${this.resolved.maxPending} formation jobs were waiting in this process`;
    await this.memories.recordFailure(entityId, job, { error, attempts: 0 });
    throw new Error(error);
  }

  private async form(entityId: string, conversationId: string, result: AgentRunResult) {
    const messages = formationMessages(result.messages);
    if (!messages.some((message) => message.role === 'user')) return;
    const jobId = `${result.runId}/${FORMATION_VERSION}`;
    const { value: queued } = await this.cache.step(jobId, 'queued', async () => ({
      seq: await this.memories.nextSeq(entityId),
      at: Date.now(),
    }));
    const job = {
      jobId,
      entityId,
      conversationId,
      runId: result.runId,
      messages,
      context: [],
      observedAt: queued.at,
      seq: queued.seq,
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.inSlot(() => this.formation.run(job));
        return;
      } catch (error) {
        if (attempt >= this.resolved.attempts || this.stopping) {
          await this.memories.recordFailure(entityId, job, {
            error: (error as Error).message,
            attempts: attempt,
          });
          throw error;
        }
        await sleep(FIRST_BACKOFF_MS * 4 ** (attempt - 1));
      }
    }
  }
}

/** A turn's user and assistant messages that hold a word, as a formation job reads them. */
export function formationMessages(messages: readonly ChatMessage[]): FormationMessage[] {
  return messages.flatMap((message) => {
    const text = contentText(message.content);
    return (message.role === 'user' || message.role === 'assistant') &&
      message.id &&
      words(text).length > 0
      ? [{ id: message.id, role: message.role, text }]
      : [];
  });
}

/**
 * The agent's formation (`formation` option), or `undefined` when it is off or the long-term tier
 * is absent; its model resolved and ready (a missing provider package fails the start).
 */
export async function createTurnFormation(
  options: AgentModuleOptions,
  longterm: LongtermMemoryService | undefined,
  cache: ReplayCache,
  engine: KernelEngine,
): Promise<TurnFormation | undefined> {
  const resolved = resolveFormation(options.formation);
  if (!resolved) return undefined;
  if (!longterm)
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'formation',
      'needs the long-term tier: import LongtermMemoryModule (and leave longterm on)',
    );
  const { model } = resolved;
  let formationModel: MemoryFormationModel;
  if (model === 'plain-statements') formationModel = new PlainStatementsFormationModel();
  else if (isFormationModel(model)) formationModel = model;
  else {
    const adapter =
      model === 'agent'
        ? engine.llm
        : typeof (model as Partial<LlmAdapter>).chat === 'function'
          ? (model as LlmAdapter)
          : createLlmAdapter(model as LlmOptions, process.env, {
              moduleName: 'AgentModule',
              option: 'formation.model',
            });
    await adapter.ready?.();
    formationModel = new LlmFormationModel(adapter);
  }
  return new TurnFormation(longterm, cache, formationModel, resolved);
}
