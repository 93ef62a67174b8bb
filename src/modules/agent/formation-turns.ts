import { contentText } from '../../common/messages/content-parts.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import { withinBudget } from '../formation/memory-formation.js';
import { words } from '../longterm/recall/search-text.js';
import type { JournaledFormation } from './formation-journal.js';
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
  };
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
