import { contentText } from '../../common/messages/content-parts.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../common/messages/chat-message.interface.js';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import { withinBudget } from '../formation/job-budget.js';
import { words } from '../longterm/recall/search-text.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import { StoreBackedMemoryProvider } from '../memory-provider/providers/store-backed.memory-provider.js';
import type { Logger } from '@nestjs/common';
import type { EntityLeases } from '../formation/entity-leases.js';
import { OVER_CAP } from '../formation/active-memory-cap.js';
import type { FormationJobRecord } from '../formation/formed-memories.js';
import { OVER_BUDGET } from '../formation/job-budget.js';
import type { EntityProfiles } from '../formation/profile/entity-profiles.js';
import type { FormationJournal, JournaledFormation } from './formation-journal.js';
import { FORMATION_VERSION, reservedFormation } from './formation-reservation.js';
import type { ReplayCache } from './runs/replay-cache.js';
import type { FormationJob } from '../formation/memory-formation.js';
import type { AgentRunResult } from './interfaces/agent-run.interface.js';

/**
 * A committed turn's formation job as it is noted and waits: its user and assistant messages that
 * hold a word, no more of them than the extraction reads (`maxChars`); `undefined` for a turn
 * without a user message to read.
 */
export function journaledTurn(
  turn: { entityId: string; conversationId: string; result: AgentRunResult },
  maxChars: number,
): JournaledFormation | undefined {
  const messages = formationMessages(turn.result.messages);
  if (!messages.some((message) => message.role === 'user')) return undefined;
  return {
    runId: turn.result.runId,
    entityId: turn.entityId,
    conversationId: turn.conversationId,
    messages: withinBudget(messages, maxChars),
    before: Math.max(0, turn.result.version - turn.result.messages.length),
  };
}

/** Earlier messages a job reads for context, at most. */
const CONTEXT_MESSAGES = 6;

/** Reads a conversation's messages before a version, for a job's context. */
export type FormationContextReader = (
  conversationId: string,
  before: number,
) => Promise<FormationMessage[]>;

/**
 * What a job reads for context through the agent's memory: the last few user and assistant
 * messages of the conversation before the job's turns (of the six stored before them, the newest
 * within `maxChars`) — through the policy's bounded `recentHistory` when it has one, else from the
 * chat store by position (a `range` read) when history is the store's; `undefined` otherwise (a
 * custom provider without a bounded read, `memory: false`): jobs then read their turns only.
 */
export function formationContextReader(
  provider: MemoryProvider | undefined,
  maxChars: number,
): FormationContextReader | undefined {
  // The policy's bounded read first: a provider that reads history its own way (redacting,
  // filtering) is read its way; a store-backed one without it (no window) by position.
  const read:
    ((conversationId: string, before: number) => Promise<StoredChatMessage[]>) | undefined =
    provider?.recentHistory
      ? async (conversationId, before) =>
          (await provider.recentHistory!(conversationId, before)).messages.slice(-CONTEXT_MESSAGES)
      : provider instanceof StoreBackedMemoryProvider &&
          provider.history === StoreBackedMemoryProvider.prototype.history
        ? (conversationId, before) => {
            const from = Math.max(0, before - CONTEXT_MESSAGES);
            return provider.store.range(conversationId, from, before - from);
          }
        : undefined;
  if (!read) return undefined;
  return async (conversationId, before) =>
    before <= 0
      ? []
      : newestWithin(formationMessages(await read(conversationId, before)), maxChars);
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
 * The newest messages within `maxChars` of text, in order: read from the newest back, the oldest
 * one read cut at its start, older ones left out (a batch's latest turn is never what is lost).
 */
export function newestWithin(messages: FormationMessage[], maxChars: number): FormationMessage[] {
  const kept: FormationMessage[] = [];
  let left = maxChars;
  for (let i = messages.length - 1; i >= 0 && left > 0; i -= 1) {
    const message = messages[i]!;
    kept.unshift(
      message.text.length <= left ? message : { ...message, text: message.text.slice(-left) },
    );
    left -= message.text.length;
  }
  return kept;
}

/** What a `TurnFormation` works with beside its store and model, when the app has it. */
export interface TurnFormationParts {
  /** With a shared run store: where jobs wait until done, for another process to take over. */
  journal?: FormationJournal;
  /** With `formation.profile`: the entity profiles jobs patch. */
  profiles?: EntityProfiles;
  /** With a shared run store: the entity leases jobs and writes hold across processes. */
  leases?: EntityLeases;
  /** Reads the conversation's messages before a job's turns (its context). */
  context?: FormationContextReader;
}

/**
 * The conversation's messages before a job's first turn, for its context; none when they cannot
 * be read (logged: the job reads its turns only).
 */
export async function contextBefore(
  read: FormationContextReader | undefined,
  first: { conversationId: string; before?: number },
  logger: Pick<Logger, 'warn'>,
): Promise<FormationMessage[]> {
  if (!read || first.before === undefined) return [];
  try {
    return await read(first.conversationId, first.before);
  } catch (error) {
    logger.warn(`Formation context not read: ${(error as Error).message}`);
    return [];
  }
}

/**
 * Warns when a written job left candidates out for a bound of the app's (the cap on active
 * memories, the job's token budget): what was said is not all remembered.
 */
export function warnOfDropped(
  logger: Pick<Logger, 'warn'>,
  runId: string,
  record: Pick<FormationJobRecord, 'operations'>,
): void {
  const dropped = record.operations.filter(
    (op) => op.overruled?.endsWith(OVER_CAP) || op.overruled?.startsWith(OVER_BUDGET),
  );
  if (dropped.length > 0)
    logger.warn(
      `Memory formation of run ${runId} left ${dropped.length} candidate(s) out: ${dropped[0]!.overruled}`,
    );
}

/**
 * The job of a conversation's turns (one, or a batch with `every`): the turns whose reservation is
 * still there (a turn of an entity erased since has none), at the newest one's seq and time and
 * named by its run — the job of a batch is the job of its last turn —, reading the newest of their
 * messages within `maxChars` and the context before the first; `undefined` when none is left.
 */
export async function jobOfTurns(
  turns: JournaledFormation[],
  options: {
    cache: ReplayCache;
    maxChars: number;
    context?: (first: JournaledFormation) => Promise<FormationMessage[]>;
  },
): Promise<FormationJob | undefined> {
  const reserved = await Promise.all(
    turns.map((turn) => reservedFormation(options.cache, turn.runId)),
  );
  const kept = turns.filter((_, i) => reserved[i]);
  const first = kept[0];
  const last = kept.at(-1);
  const at = last && reserved[turns.indexOf(last)];
  if (!first || !last || !at) return undefined;
  return {
    runId: last.runId,
    entityId: last.entityId,
    conversationId: last.conversationId,
    // The newest of the turns within the budget: an older one is cut first.
    messages: newestWithin(
      kept.flatMap((turn) => turn.messages),
      options.maxChars,
    ),
    jobId: `${last.runId}/${FORMATION_VERSION}`,
    context: (await options.context?.(first)) ?? [],
    ...(first.before === undefined ? {} : { before: first.before }),
    observedAt: at.at,
    seq: at.seq,
  };
}
