import { contentText } from '../../../common/messages/content-parts.js';
import { Injectable, Logger } from '@nestjs/common';
import type { AgentRunInput, AgentRunResult } from '../../agent/interfaces/agent-run.interface.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { AgentMemoryExceptionFilter } from '../errors/agent-memory-exception.filter.js';
import type { ChatStreamRecording } from '../streams/chat-streams.interface.js';
import { ResumableChatStreams } from '../streams/resumable-chat-streams.service.js';
import type { SseResponse } from './sse-stream.js';
import type { TurnOutcome } from './turns.service.js';
import { TurnsInFlight } from './turns-in-flight.js';
import { UiMessageStreamWriter } from './ui-message-stream.js';

/**
 * Runs a turn for `useChat`, in the AI SDK's UI message stream protocol: the same agent run as the
 * turns route (same run ids, tenants, Idempotency-Key), events mapped to protocol chunks as they
 * happen. A client that leaves does not stop the turn. Each stream is recorded, so a reader can
 * resume it; a Stop aborts the turn (nothing of it is stored) and ends the stream with `abort`.
 */
@Injectable()
export class ChatTurnsService {
  private readonly logger = new Logger('AgentMemoryHttp');

  constructor(
    private readonly services: AgentMemoryHttpServices,
    private readonly errors: AgentMemoryExceptionFilter,
    private readonly inFlight: TurnsInFlight,
    private readonly streams: ResumableChatStreams,
  ) {}

  /**
   * Streams a prepared turn to `response`, or answers an earlier run of the same key.
   * `userChunk` opens the stream for readers who resume it (see `turnUserChunk`).
   */
  async stream(
    input: AgentRunInput,
    earlier: TurnOutcome | undefined,
    response: SseResponse,
    userChunk: string,
  ): Promise<void> {
    const runId = input.runId!;
    if (earlier?.status === 201) {
      const reply = earlier.result.messages.find((message) => message.role === 'assistant');
      const writer = new UiMessageStreamWriter(response, reply?.id ?? replyIdOf(runId));
      replay(earlier.result, writer);
      return writer.close();
    }
    if (earlier) {
      const writer = new UiMessageStreamWriter(response, replyIdOf(runId));
      writer.fail(
        `This turn is still ${earlier.run.status}: read it with GET /runs/${earlier.run.runId}`,
      );
      return writer.close();
    }
    const recording = await this.streams
      .open(input.conversationId, { runId, userChunk })
      .catch((error: Error) => {
        // The turn goes on without being resumable.
        this.logger.warn(`Chat stream of run ${runId} not recorded: ${error.message}`);
        return undefined;
      });
    const writer = new UiMessageStreamWriter(response, replyIdOf(runId), recording);
    const run = recording ? { ...input, signal: recording.stopped } : input;
    return this.inFlight.track(this.streamEvents(run, writer, recording));
  }

  private async streamEvents(
    input: AgentRunInput,
    writer: UiMessageStreamWriter,
    recording: ChatStreamRecording | undefined,
  ): Promise<void> {
    try {
      for await (const event of this.services.agent.stream(input)) {
        if (event.type === 'token') writer.text(event.text);
        else if (event.type === 'tool_call') writer.toolCall(event.call);
        else if (event.type === 'tool_result') writer.toolResult(event);
        else {
          recording?.committed(event.result.version);
          writer.finish();
        }
      }
    } catch (error) {
      if (recording?.stopped.aborted) writer.abort();
      else writer.fail(this.errors.toBody(error).message);
    } finally {
      // Recorded to its end before the client's `[DONE]`: a reader who comes after it finds the
      // stream ended (and, if it committed, its version).
      await recording?.end();
      writer.close();
    }
  }
}

/** The id the turn's first assistant message is stored under: the user message is `runId:0`. */
export function replyIdOf(runId: string): string {
  return `${runId}:1`;
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
