import type { KernelStreamEvent } from '../kernel/interfaces/kernel-invoke.interface.js';
import type { AgentEventBase, AgentEvents } from './interfaces/agent-events.interface.js';
import type { AgentToolCall } from './interfaces/agent-run.interface.js';

/** Reports one of the agent's events (never throws). */
export type AgentEventEmitter = <K extends keyof AgentEvents>(
  name: K,
  event: Parameters<NonNullable<AgentEvents[K]>>[0],
) => void;

/**
 * Turns one event of a turn's tool loop into the agent's events (`onToken`, `onToolCall`,
 * `onToolResult`), and keeps the turn's tool calls with their results or errors in `toolCalls`.
 */
export function observeLoopEvent(
  event: KernelStreamEvent,
  base: AgentEventBase,
  toolCalls: AgentToolCall[],
  emit: AgentEventEmitter,
): void {
  if (event.type === 'token') emit('onToken', { ...base, text: event.text });
  else if (event.type === 'tool_call') {
    toolCalls.push({ ...event.call });
    emit('onToolCall', { ...base, call: event.call });
  } else if (event.type === 'tool_result') {
    // Results come in call order; ids repeat across rounds, so take the oldest call still waiting.
    const call = toolCalls.find(
      (candidate) =>
        candidate.id === event.toolCallId && !('result' in candidate) && !('error' in candidate),
    );
    if (call)
      Object.assign(
        call,
        event.error === undefined ? { result: event.result } : { error: event.error },
      );
    emit('onToolResult', { ...base, result: event });
  }
}
