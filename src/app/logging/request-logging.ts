import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { requestIdOf } from '../../config/logging.config.js';
import { type RequestLogFields, requestLogContext } from './app-logger.js';

/** Where a request keeps what its log lines say of it, for `resumeRequestLogContext`. */
const FIELDS = Symbol('requestLogFields');

/** A request as the platforms hand it to middleware: Fastify's carries the id it gave. */
type LoggedRequest = IncomingMessage & {
  id?: string;
  originalUrl?: string;
  [FIELDS]?: RequestLogFields;
};

/**
 * Names the request for the log: its id (Fastify's, or on Express the caller's sane
 * `X-Request-Id`, else a UUID, answered in `X-Request-Id`), then runs the rest of the request with
 * `req: { id, method, url }` on every line it logs (`url` is the path: the query string is left
 * out, as it may hold what a user wrote), and with `requestLines` logs one line when the
 * response ends (`request completed`, or at `error` from 500 up). No child logger per request.
 */
export function requestLogging(logger: Logger, requestLines: boolean) {
  return (request: LoggedRequest, response: ServerResponse, next: () => void): void => {
    let id = request.id;
    if (id === undefined) {
      id = requestIdOf(request);
      request.id = id;
      response.setHeader('X-Request-Id', id);
    }
    const fields: RequestLogFields = {
      id,
      method: request.method ?? '',
      url: pathOf(request.originalUrl ?? request.url),
    };
    request[FIELDS] = fields;
    if (requestLines) logWhenDone(logger, fields, response);
    requestLogContext.run(fields, next);
  };
}

/**
 * Enters the request's log context again (Express, after the body is read: a body's stream events
 * run outside the context `requestLogging` entered, and so would the handler).
 */
export function resumeRequestLogContext(
  request: LoggedRequest,
  _response: ServerResponse,
  next: () => void,
): void {
  const fields = request[FIELDS];
  if (fields) requestLogContext.run(fields, next);
  else next();
}

/**
 * `requestLogging` as a Fastify `onRequest` hook (the id is Fastify's own, `genReqId`). Fastify
 * reads the body within the hook's context, so the handler runs in it too.
 */
export function fastifyRequestLogging(
  fastify: FastifyInstance,
  logger: Logger,
  requestLines: boolean,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const fields: RequestLogFields = {
      id: request.id,
      method: request.method,
      url: pathOf(request.url),
    };
    if (requestLines) logWhenDone(logger, fields, reply.raw);
    requestLogContext.run(fields, done);
  });
}

/** A request target without its query string: a query may hold what a user wrote (`?q=`). */
function pathOf(url = ''): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function logWhenDone(logger: Logger, req: RequestLogFields, response: ServerResponse): void {
  const started = performance.now();
  const done = () => {
    response.off('close', done);
    response.off('finish', done);
    const line = {
      req,
      res: { statusCode: response.statusCode },
      responseTime: Math.round(performance.now() - started),
    };
    if (response.statusCode >= 500) logger.error(line, 'request errored');
    else if (!response.writableFinished) logger.warn(line, 'request aborted');
    else logger.info(line, 'request completed');
  };
  response.on('finish', done);
  response.on('close', done);
}
