import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type Next = (error?: unknown) => void;
type Request = IncomingMessage & { body?: unknown };

/**
 * Reads a JSON request body up to `limitBytes` and calls `done` once: with the parsed object or
 * array, or with an error — a 413 at once when the `Content-Length` is over the limit (not a byte
 * read) or as soon as a chunked body passes it (the rest left unread), a 400 for text that is not
 * JSON or not an object or array.
 */
export function readJsonBody(
  request: IncomingMessage,
  limitBytes: number,
  done: (error: Error | undefined, body?: object) => void,
): void {
  const tooLarge = () =>
    new PayloadTooLargeException(`request body larger than ${limitBytes} bytes`);
  if (Number(request.headers['content-length']) > limitBytes) return done(tooLarge());
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (error: Error | undefined, body?: object) => {
    if (finished) return;
    finished = true;
    done(error, body);
  };
  request.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size <= limitBytes) return void chunks.push(chunk);
    request.pause();
    finish(tooLarge());
  });
  request.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return finish(new BadRequestException('request body is not valid JSON'));
    }
    if (body === null || typeof body !== 'object')
      return finish(new BadRequestException('request body must be a JSON object or array'));
    finish(undefined, body);
  });
  request.on('error', (error) => finish(error));
}

/**
 * Express middleware: parses JSON request bodies up to `limitBytes` ({@link readJsonBody}); a
 * refused one is answered 413 with `Connection: close` and the connection closes soon after
 * ({@link lingeringClose}; body-parser drains the whole body before it answers, which a slow
 * 100 MB upload turns into a long wait). Other content types pass through unread.
 */
export function jsonBody(limitBytes: number) {
  return (request: Request, response: ServerResponse, next: Next): void => {
    // As body-parser does: every request has a body object, empty when nothing was parsed.
    request.body ??= {};
    if (!isJson(request) || !hasBody(request)) return next();
    readJsonBody(request, limitBytes, (error, body) => {
      if (error instanceof PayloadTooLargeException) closeAfterAnswer(request, response);
      if (error) return next(error);
      request.body = body;
      next();
    });
  };
}

/** Whether the request says its body is JSON (`application/json` or `…+json`). */
export function isJson(request: IncomingMessage): boolean {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.endsWith('+json') ?? false);
}

/** Whether the request carries a body (a length over 0, or chunks). */
export function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined ||
    Number(request.headers['content-length'] ?? 0) > 0
  );
}

/**
 * Answers with `Connection: close`, then closes the connection the lingering way. Node's server
 * ends such a connection itself once the answer is written, with `socket.destroySoon()`, which
 * destroys it as soon as its FIN is out — the reset this avoids, racing the client's read of the
 * answer (about one upload in three lost its 413 that way on Express) — so that call lingers too.
 */
export function closeAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('Connection', 'close');
  (request.socket as Socket & { destroySoon?: () => void }).destroySoon = () =>
    lingeringClose(request);
  response.once('finish', () => lingeringClose(request));
}

/** Marks a socket already closing the lingering way. */
const LINGERING = Symbol('lingering');

/** How long a refused upload is still read (and discarded) after the answer, at most. */
const LINGER_MS = 5_000;

/**
 * Closes the connection of a refused request the way servers must for the answer to arrive: our
 * side is half-closed (FIN after the answer) and what the client still sends is read and dropped
 * for a moment, then the socket goes. Destroying it at once would answer the client's next bytes
 * with a reset, which makes its TCP stack discard the 413 it has not read yet.
 */
function lingeringClose(request: IncomingMessage): void {
  const socket = request.socket as Socket & { [LINGERING]?: true };
  if (socket[LINGERING]) return;
  socket[LINGERING] = true;
  socket.end();
  request.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
