import { PayloadTooLargeException } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestTimeouts } from './hardened-express.adapter.js';
import { closeAfterAnswer, hasBody, readJsonBody } from './json-body.js';
import { StalledReaderGuard } from './stalled-reader-guard.js';
import { requestIdOf } from '../../config/logging.config.js';

/** What the Fastify adapter needs of the HTTP configuration. */
export interface FastifyHttpSettings extends RequestTimeouts {
  bodyLimitBytes: number;
  trustProxy?: number | string;
}

/** Marks a request whose body was refused as too large (its answer closes the connection). */
const REFUSED = Symbol('bodyRefused');

/**
 * Nest's Fastify adapter with what the Express one gets from `HardenedExpressAdapter` and the
 * app's middleware: the same server timeouts and stalled-reader guard, and JSON bodies read by the
 * same reader (413 from the `Content-Length` alone or as soon as a chunked body passes the limit,
 * then `Connection: close` and a lingering close; 400 for text that is not a JSON object or array),
 * so both platforms answer alike. Other content types are accepted unread (an empty body), as on
 * Express — except a `Content-Type` Fastify cannot parse at all (`json`, `foo`), which it answers
 * 415 before any parser runs.
 */
export function hardenedFastifyAdapter(settings: FastifyHttpSettings): FastifyAdapter {
  const { headersTimeoutMs, requestTimeoutMs, sendTimeoutMs, keepAliveTimeoutMs } = settings;
  const adapter = new FastifyAdapter({
    // Nest's own logger and the app's pino one log; Fastify's would log every request again.
    logger: false,
    bodyLimit: settings.bodyLimitBytes,
    // Request ids as on Express (the caller's sane `X-Request-Id`, else a UUID; answered in the
    // header): the request log takes the id Fastify gave the request.
    genReqId: (request: IncomingMessage) => requestIdOf(request),
    // Long path parameters reach the routes' own validation (a clear 400), as on Express, rather
    // than the router's 414 past 100 characters; a request line is bounded by Node's header limit.
    routerOptions: { maxParamLength: 16_384 },
    // A hop count or addresses, as `TRUST_PROXY` gives them (Fastify takes both; its types only names).
    ...(settings.trustProxy !== undefined ? { trustProxy: settings.trustProxy as string } : {}),
    serverFactory: (handler: (request: IncomingMessage, response: ServerResponse) => void) => {
      const server = createServer(
        {
          headersTimeout: headersTimeoutMs,
          requestTimeout: requestTimeoutMs,
          connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 2)),
        },
        handler,
      );
      // Fastify sets its keep-alive timeout (72 s) only on a server it builds itself.
      server.keepAliveTimeout = keepAliveTimeoutMs;
      if (sendTimeoutMs > 0) new StalledReaderGuard(sendTimeoutMs).attach(server);
      return server;
    },
  });
  useJsonBodies(adapter.getInstance(), settings.bodyLimitBytes);
  adapter.getInstance().addHook('onRequest', async (request, reply) => {
    // On the raw response: answers written by middleware (401, 421, /metrics) carry it too.
    reply.raw.setHeader('X-Request-Id', request.id);
  });
  return adapter;
}

function useJsonBodies(fastify: FastifyInstance, limitBytes: number): void {
  fastify.removeAllContentTypeParsers();
  const parseJson = (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (error: Error | null, body?: unknown) => void,
  ) => {
    // A body-less request that names a JSON type (a DELETE from some clients): an empty body.
    if (!hasBody(payload)) return done(null, {});
    readJsonBody(payload, limitBytes, (error, body) => {
      if (error instanceof PayloadTooLargeException)
        (request.raw as IncomingMessage & { [REFUSED]?: true })[REFUSED] = true;
      done(error ?? null, body);
    });
  };
  fastify.addContentTypeParser('application/json', parseJson);
  // Fastify matches a RegExp against the whole header, parameters included (`; charset=…`).
  fastify.addContentTypeParser(/^application\/[^;\s]+\+json(?:\s*;|$)/i, parseJson);
  // Anything else is left unread, as Express's parser leaves it: the route sees an empty body.
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, {}));
  fastify.addHook('onSend', async (request, reply) => {
    if ((request.raw as { [REFUSED]?: true })[REFUSED])
      closeAfterAnswer(request.raw, reply.raw as ServerResponse);
  });
}
