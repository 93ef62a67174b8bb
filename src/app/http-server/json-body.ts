import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Next = (error?: unknown) => void;
type Request = IncomingMessage & { body?: unknown };

/**
 * Parses JSON request bodies up to `limitBytes`, and refuses a larger one at once: from its
 * `Content-Length` before reading a byte, or as soon as a chunked body passes the limit. The 413
 * answers with `Connection: close` and the connection closes soon after (body-parser drains the
 * whole body before it answers, which a slow 100 MB upload turns into a long wait).
 * Bodies must be a JSON object or array (400 otherwise); other content types pass through unread.
 */
export function jsonBody(limitBytes: number) {
  return (request: Request, response: ServerResponse, next: Next): void => {
    // As body-parser does: every request has a body object, empty when nothing was parsed.
    request.body ??= {};
    if (!isJson(request) || !hasBody(request)) return next();
    const refuse = () => {
      response.setHeader('Connection', 'close');
      response.once('finish', () => lingeringClose(request));
      next(new PayloadTooLargeException(`request body larger than ${limitBytes} bytes`));
    };
    if (Number(request.headers['content-length']) > limitBytes) return refuse();
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    request.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      done = true;
      request.pause();
      refuse();
    });
    request.on('end', () => {
      if (done) return;
      done = true;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return next(new BadRequestException('request body is not valid JSON'));
      }
      if (body === null || typeof body !== 'object')
        return next(new BadRequestException('request body must be a JSON object or array'));
      request.body = body;
      next();
    });
    request.on('error', (error) => {
      if (done) return;
      done = true;
      next(error);
    });
  };
}

function isJson(request: IncomingMessage): boolean {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.endsWith('+json') ?? false);
}

function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined ||
    Number(request.headers['content-length'] ?? 0) > 0
  );
}

/** How long a refused upload is still read (and discarded) after the answer, at most. */
const LINGER_MS = 5_000;

/**
 * Closes the connection of a refused request the way servers must for the answer to arrive: our
 * side is half-closed (FIN after the answer) and what the client still sends is read and dropped
 * for a moment, then the socket goes. Destroying it at once would answer the client's next bytes
 * with a reset, which makes its TCP stack discard the 413 it has not read yet.
 */
function lingeringClose(request: IncomingMessage): void {
  const socket = request.socket;
  socket.end();
  request.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
