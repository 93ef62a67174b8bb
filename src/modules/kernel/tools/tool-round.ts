import type { ToolCall } from '../../../common/messages/chat-message.interface.js';

/**
 * Runs one round's tool calls: in parallel, except that a serial call waits for every earlier call
 * of the round and every later call waits for it. Results come back in call order.
 */
export async function runToolRound<Result>(
  calls: readonly ToolCall[],
  isSerial: (call: ToolCall) => boolean,
  run: (call: ToolCall, index: number) => Promise<Result>,
): Promise<Result[]> {
  const started: Array<Promise<Result>> = [];
  let gate: Promise<unknown> = Promise.resolve();
  for (const [index, call] of calls.entries()) {
    if (isSerial(call)) {
      const earlier = Promise.allSettled(started);
      const current = earlier.then(() => run(call, index));
      gate = current.catch(() => undefined);
      started.push(current);
    } else {
      started.push(gate.then(() => run(call, index)));
    }
  }
  return Promise.all(started);
}
