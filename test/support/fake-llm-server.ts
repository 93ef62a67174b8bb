import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer of the fake server. */
export type FakeReply =
  | {
      kind: 'json';
      body: unknown;
      status?: number;
      headers?: Record<string, string>;
      /** Waits this long before answering (a slow model). */
      delayMs?: number;
      /** Answers only once this settles (a model held until the test lets it answer). */
      waitFor?: Promise<unknown>;
    }
  | {
      kind: 'sse';
      events: Array<string | { event: string; data: string }>;
      delayMs?: number;
      dropAfter?: number;
      /** Waits `ms` before sending the event at `index` (a stream that stalls part-way). */
      stall?: { index: number; ms: number };
    }
  | { kind: 'drop' }
  | { kind: 'hang' };

/** A request the fake server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/**
 * A local HTTP server (127.0.0.1, ephemeral port) that answers LLM API calls from a script, so the
 * real adapters and their wire formats are exercised: JSON bodies, SSE streams (optionally cut
 * short), error statuses with headers, dropped connections and requests left hanging.
 */
export class FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: Array<FakeReply | ((request: RecordedRequest) => FakeReply)> = [];
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  /** Answers requests once the script is used up (default: 500). */
  fallback?: (request: RecordedRequest) => FakeReply;

  /** Starts listening; resolves with the base URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues answers, used in order. */
  enqueue(...replies: Array<FakeReply | ((request: RecordedRequest) => FakeReply)>): this {
    this.replies.push(...replies);
    return this;
  }

  /** Forgets recorded requests and unused replies. */
  reset(): void {
    this.requests.length = 0;
    this.replies.length = 0;
    this.fallback = undefined;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
    this.requests.push(request);
    const next =
      this.replies.shift() ??
      this.fallback ??
      (() => ({ kind: 'json', status: 500, body: { error: 'no scripted reply' } }) as FakeReply);
    const reply = typeof next === 'function' ? next(request) : next;
    await this.send(reply, req, res);
  }

  private async send(reply: FakeReply, req: IncomingMessage, res: ServerResponse): Promise<void> {
    switch (reply.kind) {
      case 'json':
        if (reply.waitFor) await reply.waitFor.catch(() => undefined);
        if (reply.delayMs) await pause(reply.delayMs, res);
        res.writeHead(reply.status ?? 200, {
          'content-type': 'application/json',
          ...reply.headers,
        });
        res.end(JSON.stringify(reply.body));
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const [index, event] of reply.events.entries()) {
          if (reply.stall?.index === index) await pause(reply.stall.ms, res);
          // A client that left gets nothing more (and leaves no timer behind).
          if (res.destroyed) return;
          if (reply.dropAfter !== undefined && index >= reply.dropAfter) {
            req.socket.destroy();
            return;
          }
          const frame =
            typeof event === 'string'
              ? `data: ${event}\n\n`
              : `event: ${event.event}\ndata: ${event.data}\n\n`;
          // Wait until the frame is flushed, so a later drop cuts the stream after it, not before.
          await new Promise((resolve) => res.write(frame, resolve));
          if (reply.delayMs) await pause(reply.delayMs, res);
        }
        res.end();
        return;
      }
    }
  }
}

/** Waits `ms`, or less if the client leaves first (the timer is cleared either way). */
function pause(ms: number, res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

/** An OpenAI chat-completion body. */
export function openAiCompletion(
  content: string | null,
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
  usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
): FakeReply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          message: {
            role: 'assistant',
            content,
            ...(toolCalls.length
              ? {
                  tool_calls: toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
        },
      ],
      usage,
    },
  };
}

/** The data payloads of an OpenAI stream: text tokens, tool calls in pieces, usage, `[DONE]`. */
export function openAiStream(
  tokens: string[],
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
  options: {
    delayMs?: number;
    dropAfter?: number;
    usage?: boolean;
    stall?: { index: number; ms: number };
  } = {},
): FakeReply {
  const events: string[] = [
    JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] }),
  ];
  for (const token of tokens)
    events.push(JSON.stringify({ choices: [{ index: 0, delta: { content: token } }] }));
  toolCalls.forEach((call, index) => {
    const half = Math.ceil(call.arguments.length / 2);
    events.push(
      JSON.stringify({
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            },
          },
        ],
      }),
    );
    events.push(
      JSON.stringify({
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index, function: { arguments: call.arguments.slice(0, half) } }],
            },
          },
        ],
      }),
    );
    events.push(
      JSON.stringify({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] },
          },
        ],
      }),
    );
  });
  events.push(
    JSON.stringify({
      choices: [{ index: 0, delta: {}, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
    }),
  );
  if (options.usage !== false)
    events.push(
      JSON.stringify({
        choices: [],
        usage: {
          prompt_tokens: 7,
          completion_tokens: tokens.length,
          total_tokens: 7 + tokens.length,
        },
      }),
    );
  events.push('[DONE]');
  return {
    kind: 'sse',
    events,
    delayMs: options.delayMs,
    dropAfter: options.dropAfter,
    stall: options.stall,
  };
}

/** An Anthropic Messages API response body. */
export function anthropicMessage(
  text: string | null,
  toolUses: Array<{ id: string; name: string; input: unknown }> = [],
): FakeReply {
  return {
    kind: 'json',
    body: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      content: [
        ...(text === null ? [] : [{ type: 'text', text }]),
        ...toolUses.map((t) => ({ type: 'tool_use', ...t })),
      ],
      stop_reason: toolUses.length ? 'tool_use' : 'end_turn',
      usage: { input_tokens: 12, output_tokens: 4 },
    },
  };
}

/** An Anthropic event stream: text deltas, tool_use blocks with partial JSON, usage, message_stop. */
export function anthropicStream(
  tokens: string[],
  toolUses: Array<{ id: string; name: string; input: unknown }> = [],
  options: { dropAfter?: number } = {},
): FakeReply {
  const event = (type: string, payload: Record<string, unknown>) => ({
    event: type,
    data: JSON.stringify({ type, ...payload }),
  });
  const events = [
    event('message_start', { message: { usage: { input_tokens: 9, output_tokens: 1 } } }),
    event('ping', {}),
  ];
  let index = 0;
  if (tokens.length) {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const text of tokens)
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  for (const use of toolUses) {
    const json = JSON.stringify(use.input);
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} },
      }),
    );
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(0, 3) },
      }),
    );
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(3) },
      }),
    );
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: toolUses.length ? 'tool_use' : 'end_turn' },
      usage: { output_tokens: 6 },
    }),
  );
  events.push(event('message_stop', {}));
  return { kind: 'sse', events, dropAfter: options.dropAfter };
}

/**
 * The model's answer in the form each request asks for: streamed (`stream: true`, the text in
 * word-sized tokens, `delayMs` apart) or one JSON completion.
 */
export function openAiAnswer(
  text: string | null,
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
  delayMs = 0,
): (request: RecordedRequest) => FakeReply {
  return (request) =>
    request.body['stream']
      ? openAiStream(text ? text.split(/(?<= )/) : [], toolCalls, { delayMs })
      : openAiCompletion(text, toolCalls);
}

/**
 * {@link openAiAnswer} with a completion id of its own (the fixed `chatcmpl-test` otherwise):
 * LangChain gives an AI message its completion's id, and both LangGraph's message reducer and the
 * package's stores treat a message whose id they already hold as the same message.
 */
export function uniqueOpenAiAnswer(
  text: string | null,
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
): (request: RecordedRequest) => FakeReply {
  let count = 0;
  return (request) => {
    const reply = openAiAnswer(text, toolCalls)(request);
    count += 1;
    if (reply.kind === 'json')
      (reply.body as { id: string }).id =
        `chatcmpl-${process.pid}-${Date.now()}-${count}-${Math.random().toString(36).slice(2)}`;
    return reply;
  };
}
