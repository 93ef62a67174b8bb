import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SseResponse } from '../turns/sse-stream.js';

/** Fastify's reply, as far as the module's routes use it. */
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  readonly sent: boolean;
  hijack(): unknown;
  getHeaders(): Record<string, unknown>;
  status(code: number): { send(body: unknown): unknown };
}

/** Express's response, as far as the module's routes use it (it is a `ServerResponse` too). */
interface ExpressResponseLike {
  readonly headersSent: boolean;
  status(code: number): { json(body: unknown): unknown };
}

/**
 * What `@Res()` gives a route: Express's response (a `ServerResponse`) or Fastify's reply (which
 * wraps one). The module's routes work under `@nestjs/platform-express` and
 * `@nestjs/platform-fastify` alike through the functions below.
 */
export type PlatformResponse = object;

function isFastifyReply(response: PlatformResponse): response is FastifyReplyLike {
  return 'raw' in response && typeof (response as FastifyReplyLike).hijack === 'function';
}

/** Sends `body` as JSON with `status`, through the platform (its hooks and headers apply). */
export function sendJson(response: PlatformResponse, status: number, body: unknown): void {
  if (isFastifyReply(response)) response.status(status).send(body);
  else (response as ExpressResponseLike).status(status).json(body);
}

/** Whether the answer has started (headers out): an error can then no longer be sent as JSON. */
export function answerStarted(response: PlatformResponse): boolean {
  return isFastifyReply(response)
    ? response.sent || response.raw.headersSent
    : (response as ExpressResponseLike).headersSent;
}

/**
 * The response as a stream the route writes itself (SSE): Node's `ServerResponse`. On Fastify the
 * reply is hijacked at the first `writeHead`, so Fastify leaves the response to the route from then
 * on — and not before, so an error thrown before the stream starts is still answered as JSON.
 */
export function streamingResponse(response: PlatformResponse): SseResponse {
  if (!isFastifyReply(response)) return response as ServerResponse;
  const reply = response;
  const raw = reply.raw;
  return {
    writeHead: (status, headers) => {
      // Headers set through the reply so far (guards, interceptors) go out with the stream's.
      const earlier = reply.getHeaders() as Record<string, string>;
      reply.hijack();
      return raw.writeHead(status, { ...earlier, ...headers });
    },
    write: (chunk) => raw.write(chunk),
    end: () => raw.end(),
    on: (event, listener) => raw.on(event, listener),
    flushHeaders: () => raw.flushHeaders(),
  };
}

/**
 * Node's `ServerResponse` for a handler that writes it itself (the MCP transport). On Fastify the
 * reply is hijacked now, its headers set so far kept: call it once nothing can still fail as a JSON
 * error.
 */
export function rawResponse(response: PlatformResponse): ServerResponse {
  if (!isFastifyReply(response)) return response as ServerResponse;
  // Headers set through the reply so far (the app's hooks, guards) go out with the handler's.
  const earlier = Object.entries(response.getHeaders());
  response.hijack();
  for (const [name, value] of earlier)
    if (value !== undefined) response.raw.setHeader(name, value as string | number | string[]);
  return response.raw;
}

/**
 * Node's `IncomingMessage` of a request, with the body the platform parsed (if any) as `body`:
 * Express's request is one; Fastify's wraps one.
 */
export function rawRequest(request: object): IncomingMessage & { body?: unknown } {
  if (!('raw' in request)) return request as IncomingMessage & { body?: unknown };
  const { raw, body } = request as { raw: IncomingMessage & { body?: unknown }; body?: unknown };
  if (body !== undefined) raw.body = body;
  return raw;
}
