import type { SseResponse } from './sse-stream.js';

/**
 * The headers of the Vercel AI SDK's UI message stream protocol (v1): SSE, marked with
 * `x-vercel-ai-ui-message-stream: v1` so `useChat` reads it as such.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
  'x-vercel-ai-ui-message-stream': 'v1',
};

/** A chunk of the protocol (`data: {json}` frames). */
export type UiMessageChunk = { type: string } & Record<string, unknown>;

/** Where a writer also records each chunk (its JSON text), for readers resuming the stream. */
export interface UiMessageChunkSink {
  append(chunk: string): void;
}

/**
 * Writes one assistant message in the UI message stream protocol, from the agent's events: `start`
 * (its `messageId` is the id the reply's first assistant message is stored under, so a client that
 * reloads the history finds the same message), then per model round a `start-step` … `finish-step`
 * holding its text (`text-start` / `text-delta` / `text-end`) and its tool calls
 * (`tool-input-available`, then `tool-output-available` or `tool-output-error`), then `finish`; a
 * failure is an `error` chunk, a Stop a transient `data-turn-stopped` chunk and `abort`. `close()`
 * then sends `[DONE]` and ends the response. Tool parts are `dynamic` (the client needs no tool
 * declarations) and their ids are made unique per round, since models reuse `call_0` round after
 * round. Once the client has gone, writes to it are dropped: the turn behind the stream goes on,
 * and the `recording` (when given) still gets every chunk.
 */
export class UiMessageStreamWriter {
  /** The client left: nothing more is written to the response. */
  private clientGone = false;
  /** The message is over (`finish`, `error` or `abort` written). */
  private ended = false;
  /** `[DONE]` sent, the response ended. */
  private closed = false;
  private round = 0;
  private stepOpen = false;
  private textId?: string;
  private texts = 0;
  private toolsDone = false;

  constructor(
    private readonly response: SseResponse,
    private readonly messageId: string,
    private readonly recording?: UiMessageChunkSink,
  ) {
    response.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS });
    response.flushHeaders?.();
    response.on('close', () => {
      this.clientGone = true;
    });
    this.write({ type: 'start', messageId });
  }

  /** A token of the model's text. */
  text(delta: string): void {
    this.step();
    if (this.textId === undefined) {
      this.textId = `${this.messageId}:text:${this.texts++}`;
      this.write({ type: 'text-start', id: this.textId });
    }
    this.write({ type: 'text-delta', id: this.textId, delta });
  }

  /** A tool call the model made, with its JSON arguments. */
  toolCall(call: { id: string; name: string; arguments: string }): void {
    this.step();
    this.endText();
    this.write({
      type: 'tool-input-available',
      toolCallId: this.toolCallId(call.id),
      toolName: call.name,
      input: parseArguments(call.arguments),
      dynamic: true,
    });
  }

  /** What a tool call returned, or its error. */
  toolResult(result: { toolCallId: string; result?: unknown; error?: string }): void {
    const toolCallId = this.toolCallId(result.toolCallId);
    if (result.error !== undefined)
      this.write({ type: 'tool-output-error', toolCallId, errorText: result.error, dynamic: true });
    else
      this.write({
        type: 'tool-output-available',
        toolCallId,
        output: result.result ?? null,
        dynamic: true,
      });
    this.toolsDone = true;
  }

  /** The turn is committed: closes the message. */
  finish(): void {
    this.endText();
    if (this.stepOpen) this.write({ type: 'finish-step' });
    this.stepOpen = false;
    // No `finishReason`: `ai` 5 reads the chunk strictly and does not know it.
    this.write({ type: 'finish' });
    this.ended = true;
  }

  /** The turn failed: an `error` chunk (its text is the `{ message }` of the HTTP error). */
  fail(errorText: string): void {
    this.endText();
    this.write({ type: 'error', errorText });
    this.ended = true;
  }

  /** The turn was stopped (nothing of it is stored): an `abort` chunk ends the message. */
  abort(): void {
    this.endText();
    // `useChat` does not act on `abort` from the server: the transient chunk tells its `onData`.
    this.write({ type: 'data-turn-stopped', transient: true, data: { messageId: this.messageId } });
    this.write({ type: 'abort' });
    this.ended = true;
  }

  /** Sends `[DONE]` and ends the response (once the message is over and recorded). */
  close(): void {
    this.ended = true;
    if (this.closed) return;
    this.closed = true;
    if (this.clientGone) return;
    this.response.write('data: [DONE]\n\n');
    this.response.end();
  }

  private step(): void {
    if (this.stepOpen && !this.toolsDone) return;
    if (this.stepOpen) {
      this.endText();
      this.write({ type: 'finish-step' });
      this.round += 1;
    }
    this.stepOpen = true;
    this.toolsDone = false;
    this.write({ type: 'start-step' });
  }

  private endText(): void {
    if (this.textId === undefined) return;
    this.write({ type: 'text-end', id: this.textId });
    this.textId = undefined;
  }

  private toolCallId(id: string): string {
    return `${this.round}:${id}`;
  }

  private write(chunk: UiMessageChunk): void {
    if (this.ended) return;
    const json = JSON.stringify(chunk);
    this.recording?.append(json);
    if (!this.clientGone) this.response.write(`data: ${json}\n\n`);
  }
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
