import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';

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
 * The safe sliding window, at any window size (`Infinity` trims nothing):
 *
 * 1. system messages are always kept, moved to the head in their order, and not counted;
 * 2. of the rest, the newest `window` are kept;
 * 3. a tool result is only sent right after its call: results left at the head by trimming, results
 *    whose call is not in the output, results separated from their call by another message, and
 *    repeated results of one call are dropped. A result belongs to the nearest preceding assistant
 *    message holding its id (ids are unique only within one message, not across rounds or turns);
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
  // The round is the call and the block of tool messages right after it (see pairCallsWithResults).
  let roundEnd = callIndex;
  while (body[roundEnd + 1]?.role === 'tool') roundEnd += 1;
  return start <= roundEnd ? callIndex : start;
}

/** An assistant message with tool calls, as pairing sees it. */
interface ToolRound {
  /** How many calls hold each id (an id is unique within a message, but a model may repeat one). */
  expected: Map<string, number>;
  /** How many results were paired with each id so far. */
  answered: Map<string, number>;
  /** Output index after which the round's missing results go: its last result, else the call. */
  lastResult: number;
}

/**
 * Rules 3 and 4 over the kept body messages, in order. Results of a round follow its assistant
 * message directly (the only order providers accept), so a result belongs to the assistant message
 * whose block of results it stands in, and only if that message holds its id: call ids are unique
 * only within one assistant message (providers reuse `call_0` across rounds and turns), so an
 * earlier message with the same id never claims it. A result out of place (after another message,
 * or one result too many for its call) is dropped.
 */
function pairCallsWithResults(kept: readonly ChatMessage[]): ChatMessage[] {
  const output: ChatMessage[] = [];
  const rounds = new Map<number, ToolRound>();
  /** The round whose block of results is still open: only tool messages came after it. */
  let open: ToolRound | undefined;
  for (const message of kept) {
    if (message.role === 'tool') {
      const id = message.toolCallId!;
      const answered = open?.answered.get(id) ?? 0;
      if (!open || answered >= (open.expected.get(id) ?? 0)) continue;
      open.answered.set(id, answered + 1);
      open.lastResult = output.length;
    } else {
      open = undefined;
    }
    if (message.toolCalls?.length) {
      const expected = new Map<string, number>();
      for (const call of message.toolCalls) expected.set(call.id, (expected.get(call.id) ?? 0) + 1);
      open = { expected, answered: new Map(), lastResult: output.length };
      rounds.set(output.length, open);
    }
    output.push(message);
  }
  return supplyMissingResults(output, rounds);
}

/** Rule 4: a synthetic cancelled result for each unanswered call, after its round's last result. */
function supplyMissingResults(
  messages: readonly ChatMessage[],
  rounds: ReadonlyMap<number, ToolRound>,
): ChatMessage[] {
  const pending = new Map<number, ChatMessage[]>();
  for (const [index, { answered, lastResult }] of rounds) {
    const unanswered = new Map(answered);
    const missing = messages[index]!.toolCalls!.filter((call) => {
      const left = unanswered.get(call.id) ?? 0;
      unanswered.set(call.id, left - 1);
      return left <= 0;
    });
    if (missing.length === 0) continue;
    pending.set(
      lastResult,
      missing.map((call): ChatMessage => ({
        role: 'tool',
        content: CANCELLED_TOOL_RESULT,
        toolCallId: call.id,
        name: call.name,
      })),
    );
  }
  if (pending.size === 0) return [...messages];
  return messages.flatMap((message, index) => [message, ...(pending.get(index) ?? [])]);
}

function lastIndexWhere<T>(
  items: readonly T[],
  predicate: (item: T, index: number) => boolean,
): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (predicate(items[i]!, i)) return i;
  return -1;
}
