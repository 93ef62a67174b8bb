import type { ChatMessage } from '../../chat-memory/interfaces/chat-message.interface.js';

/** The content of the result supplied for a tool call whose result is missing (never stored). */
export const CANCELLED_TOOL_RESULT = '{"error":"cancelled"}';

/** What the window kept, and what fell out of it (for the summarizing provider). */
export interface WindowSplit {
  /** What to send: system messages first, then the window, with rules 3–7 applied. */
  output: ChatMessage[];
  /** Body messages (not system) of the input that are not sent (trimmed or orphaned), oldest first. */
  dropped: ChatMessage[];
}

/**
 * The safe sliding window of DESIGN §5, at any window size (`Infinity` trims nothing):
 *
 * 1. system messages are always kept, moved to the head in their order, and not counted;
 * 2. of the rest, the newest `window` are kept;
 * 3. a tool result is only sent after its call: results left at the head by trimming, results whose
 *    call is not in the output, and repeated results of one call are dropped;
 * 4. an assistant message with tool calls is never sent without all its results: a missing one is
 *    supplied as a synthetic `{"error":"cancelled"}` tool message after the call's other results;
 * 5. the current turn's user message (the last user message) is kept, right after the system
 *    messages, even if the window would cut it;
 * 6. the newest tool round of the current turn is never cut: a boundary inside it moves back to
 *    its assistant message (the window may then hold more than `window`);
 * 7. the output keeps the input's relative order.
 *
 * Pure: the input array and its messages are never mutated.
 */
export function safeWindow(messages: readonly ChatMessage[], window: number): WindowSplit {
  const system = messages.filter((message) => message.role === 'system');
  const body = messages.filter((message) => message.role !== 'system');
  const userIndex = lastIndexWhere(body, (message) => message.role === 'user');
  let start = Math.max(0, body.length - (Number.isFinite(window) ? window : body.length));
  start = keepNewestToolRound(body, start, userIndex);
  const kept =
    userIndex >= 0 && userIndex < start
      ? [body[userIndex]!, ...body.slice(start)]
      : body.slice(start);
  const output = [...system, ...pairCallsWithResults(kept)];
  const sent = new Set(output);
  return { output, dropped: body.filter((message) => !sent.has(message)) };
}

/** Rule 6: if `start` falls inside the current turn's newest tool round, move it back to the round's call. */
function keepNewestToolRound(
  body: readonly ChatMessage[],
  start: number,
  userIndex: number,
): number {
  const callIndex = lastIndexWhere(
    body,
    (message, i) => i > userIndex && (message.toolCalls?.length ?? 0) > 0,
  );
  if (callIndex < 0 || start <= callIndex) return start;
  const callIds = new Set(body[callIndex]!.toolCalls!.map((call) => call.id));
  const roundEnd = lastIndexWhere(
    body,
    (message, i) => i > callIndex && message.role === 'tool' && callIds.has(message.toolCallId!),
  );
  return start <= Math.max(callIndex, roundEnd) ? callIndex : start;
}

/** Rules 3 and 4 over the kept body messages, in order. */
function pairCallsWithResults(kept: readonly ChatMessage[]): ChatMessage[] {
  const callsSeen = new Set<string>();
  const answered = new Set<string>();
  const results: ChatMessage[] = [];
  for (const message of kept) {
    if (message.role === 'tool') {
      const id = message.toolCallId!;
      if (!callsSeen.has(id) || answered.has(id)) continue;
      answered.add(id);
    }
    for (const call of message.toolCalls ?? []) callsSeen.add(call.id);
    results.push(message);
  }
  return supplyMissingResults(results, answered);
}

function supplyMissingResults(messages: ChatMessage[], answered: Set<string>): ChatMessage[] {
  const output: ChatMessage[] = [];
  const pending = new Map<number, ChatMessage[]>();
  messages.forEach((message, index) => {
    output.push(message);
    for (const synthetic of pending.get(index) ?? []) output.push(synthetic);
    const missing = (message.toolCalls ?? []).filter((call) => !answered.has(call.id));
    if (missing.length === 0) return;
    const ids = new Set(message.toolCalls!.map((call) => call.id));
    const lastResult = lastIndexWhere(
      messages,
      (m, i) => i > index && m.role === 'tool' && ids.has(m.toolCallId!),
    );
    const synthetic = missing.map((call): ChatMessage => ({
      role: 'tool',
      content: CANCELLED_TOOL_RESULT,
      toolCallId: call.id,
      name: call.name,
    }));
    if (lastResult < 0) output.push(...synthetic);
    else pending.set(lastResult, [...(pending.get(lastResult) ?? []), ...synthetic]);
  });
  return output;
}

function lastIndexWhere<T>(
  items: readonly T[],
  predicate: (item: T, index: number) => boolean,
): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (predicate(items[i]!, i)) return i;
  return -1;
}
