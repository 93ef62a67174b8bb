import { contentText } from '../../../common/messages/content-parts.js';
import { Injectable } from '@nestjs/common';
import type { AgentRunInput, AgentRunResult } from '../../agent/interfaces/agent-run.interface.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { AgentMemoryExceptionFilter } from '../errors/agent-memory-exception.filter.js';
import type { TurnOutcome } from './turns.service.js';
import { TurnsInFlight } from './turns-in-flight.js';
import type { UiMessageStreamWriter } from './ui-message-stream.js';

/**
 * Runs a turn for `useChat`, in the AI SDK's UI message stream protocol: the same agent run as the
 * turns route (same run ids, tenants, Idempotency-Key), events mapped to protocol chunks as they
 * happen. A client that leaves does not stop the turn.
 */
@Injectable()
export class ChatTurnsService {
  constructor(
    private readonly services: AgentMemoryHttpServices,
    private readonly errors: AgentMemoryExceptionFilter,
    private readonly inFlight: TurnsInFlight,
  ) {}

  /** Streams a prepared turn, or answers an earlier run of the same key. */
  async stream(
    input: AgentRunInput,
    earlier: TurnOutcome | undefined,
    writer: UiMessageStreamWriter,
  ): Promise<void> {
    if (earlier?.status === 201) return replay(earlier.result, writer);
    if (earlier)
      return writer.fail(
        `This turn is still ${earlier.run.status}: read it with GET /runs/${earlier.run.runId}`,
      );
    return this.inFlight.track(this.streamEvents(input, writer));
  }

  private async streamEvents(input: AgentRunInput, writer: UiMessageStreamWriter): Promise<void> {
    try {
      for await (const event of this.services.agent.stream(input)) {
        if (event.type === 'token') writer.text(event.text);
        else if (event.type === 'tool_call') writer.toolCall(event.call);
        else if (event.type === 'tool_result') writer.toolResult(event);
        else writer.finish();
      }
    } catch (error) {
      writer.fail(this.errors.toBody(error).message);
    }
  }
}

/** A committed turn, written again as the stream it was (a repeated Idempotency-Key). */
function replay(result: AgentRunResult, writer: UiMessageStreamWriter): void {
  // `toolCalls` lists the turn's calls in order, as its tool messages answer them (ids repeat
  // across rounds, so they are matched by position, not by id).
  let next = 0;
  for (const message of result.messages) {
    if (message.role === 'assistant') {
      const text = contentText(message.content);
      if (text) writer.text(text);
      for (const call of message.toolCalls ?? []) writer.toolCall(call);
    } else if (message.role === 'tool' && message.toolCallId) {
      const call = result.toolCalls[next++];
      writer.toolResult({
        toolCallId: message.toolCallId,
        ...(call?.error !== undefined ? { error: call.error } : { result: call?.result }),
      });
    }
  }
  writer.finish();
}
