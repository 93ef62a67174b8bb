import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import { KernelAbortedError, MaxToolIterationsError } from '../errors/kernel.errors.js';
import type { KernelToolResult } from '../interfaces/kernel-filter.interface.js';
import type { KernelStreamEvent } from '../interfaces/kernel-invoke.interface.js';
import {
  type LlmResponse,
  NO_USAGE,
  type Usage,
  addUsage,
} from '../../llm/interfaces/llm.interface.js';
import type { HistoryStrategy } from './history-strategy.js';

/** Names a message of the turn: `round`, its index in the round's delta (the reply comes last), its index in the turn. */
export type MessageIdScheme = (round: number, indexInRound: number, indexInTurn: number) => string;

/** One run of the loop. */
export interface ToolLoopRun {
  /** The new messages the run starts with (ids kept where given). */
  input: readonly ChatMessage[];
  ids: MessageIdScheme;
  history: HistoryStrategy;
  maxToolIterations: number;
  signal?: AbortSignal;
}

/** How the loop reaches the model and the tools (both through their filter chains). */
export interface ToolLoopPorts {
  callModel(messages: ChatMessage[], round: number, replyId: string): Promise<LlmResponse>;
  runTools(calls: ToolCall[], round: number): Promise<KernelToolResult[]>;
  /** Tool calls and results as they happen (tokens are reported by `callModel`). */
  onEvent?(event: KernelStreamEvent): void;
  /** Builds a round's tool messages from the outcomes (default: content as JSON text). */
  toolMessage(call: ToolCall, outcome: KernelToolResult): ChatMessage;
}

/** What a run of the loop produced. */
export interface ToolLoopOutcome {
  reply: ChatMessage;
  /** The whole turn: input, replies, tool results, each with its id. */
  messages: ChatMessage[];
  usage: Usage;
}

/**
 * The tool-calling loop, shared by the kernel and the agent (only the history strategy and the id
 * scheme differ): call the model; while it asks for tools, run them (in parallel, serial tools
 * apart) and call it again with the results; stop on a plain answer. Ids are stamped before any
 * message reaches a filter, so a retried step produces the same ids.
 */
export async function runToolLoop(
  run: ToolLoopRun,
  ports: ToolLoopPorts,
): Promise<ToolLoopOutcome> {
  const turn: ChatMessage[] = [];
  let delta = stamp(run.input, run.ids, 0, turn.length);
  turn.push(...delta);
  let usage = NO_USAGE;
  for (let round = 0; ; round += 1) {
    if (run.signal?.aborted) throw new KernelAbortedError(run.signal.reason);
    const replyId = run.ids(round, delta.length, turn.length);
    const response = await ports.callModel(
      await run.history.messagesFor(turn, delta),
      round,
      replyId,
    );
    const reply: ChatMessage = { ...response.message, id: replyId };
    usage = addUsage(usage, response.usage);
    turn.push(reply);
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0) return { reply, messages: turn, usage };
    if (round >= run.maxToolIterations) throw new MaxToolIterationsError(run.maxToolIterations);
    for (const call of calls) ports.onEvent?.({ type: 'tool_call', call });
    const outcomes = await ports.runTools(calls, round);
    if (run.signal?.aborted) throw new KernelAbortedError(run.signal.reason);
    const results = calls.map((call, i) => ports.toolMessage(call, outcomes[i]!));
    calls.forEach((call, i) =>
      ports.onEvent?.({
        type: 'tool_result',
        toolCallId: call.id,
        name: call.name,
        ...outcomes[i]!,
      }),
    );
    delta = stamp(results, run.ids, round + 1, turn.length);
    turn.push(...delta);
  }
}

function stamp(
  messages: readonly ChatMessage[],
  ids: MessageIdScheme,
  round: number,
  turnLength: number,
): ChatMessage[] {
  return messages.map((message, i) =>
    message.id ? { ...message } : { ...message, id: ids(round, i, turnLength + i) },
  );
}
