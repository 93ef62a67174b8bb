import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';

/**
 * Where a round's messages come from. `turn` holds every message of the invoke (or agent turn) so
 * far, `delta` those that are new since the previous model call.
 */
export interface HistoryStrategy {
  messagesFor(
    turn: readonly ChatMessage[],
    delta: readonly ChatMessage[],
  ): ChatMessage[] | Promise<ChatMessage[]>;
}

/** Full mode: the whole list accumulates locally and is sent every round. */
export const FULL_HISTORY: HistoryStrategy = { messagesFor: (turn) => [...turn] };

/** Delta mode: only what is new is sent; the memory filter expands it to the stored history. */
export const STORE_DELTA_HISTORY: HistoryStrategy = { messagesFor: (_turn, delta) => [...delta] };
