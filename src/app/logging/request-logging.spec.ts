import { afterEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createRootLogger } from './app-logger.js';
import {
  fastifyRequestLogging,
  requestLogging,
  resumeRequestLogContext,
} from './request-logging.js';

/** A pino destination keeping each line, parsed. */
function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

/** One request over loopback; resolves with the status and headers once the answer is read. */
function send(port: number, method: string, path: string, body?: string, headers = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers }),
        );
      },
    );
    outgoing.on('error', reject);
    if (body === undefined) return void outgoing.end();
    // The body comes later than the head, so it is read in events of its own.
    outgoing.flushHeaders();
    setTimeout(() => outgoing.end(body), 30);
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
let close: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('request logging', () => {
  it('on Express-style middleware: names the request on lines logged after the body is read, answers X-Request-Id, and logs one line per request', async () => {
    const { lines, stream } = captured();
    const logger = createRootLogger({ level: 'info', requestLines: true }, stream);
    const middleware = requestLogging(logger, true);
    const server: Server = createServer((request, response) =>
      // As in the app: the middleware first, then the body is read (its events come later, outside
      // the context), then the context entered again, then the handler.
      middleware(request, response, () => {
        request.resume();
        request.on('end', () =>
          resumeRequestLogContext(request, response, () =>
            setImmediate(() => {
              logger.info('in the handler');
              response.statusCode = request.url === '/fail' ? 500 : 201;
              response.end();
            }),
          ),
        );
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(resolve));
    const { port } = server.address() as AddressInfo;

    const given = await send(port, 'POST', '/turns?x=1', '{"a":1}', { 'x-request-id': 'trace-7' });
    const fresh = await send(port, 'GET', '/fail', undefined, { 'x-request-id': 'not sane!' });
    await settle();
    expect(given.headers['x-request-id']).toBe('trace-7');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const handled = lines.filter((line) => line.msg === 'in the handler');
    expect(handled.map((line) => line.req)).toEqual([
      { id: 'trace-7', method: 'POST', url: '/turns' }, // the path: a query may hold user text
      { id: fresh.headers['x-request-id'], method: 'GET', url: '/fail' },
    ]);
    const ends = lines.filter((line) => 'responseTime' in line);
    expect(ends.map((line) => [line.level, line.msg, line.res])).toEqual([
      [30, 'request completed', { statusCode: 201 }],
      [50, 'request errored', { statusCode: 500 }],
    ]);
    expect(JSON.stringify(lines)).not.toContain('content-type');
  });

  it('on Fastify: the id Fastify gave, the request named in the handler after its body, and no request line unless asked', async () => {
    for (const requestLines of [true, false]) {
      const { lines, stream } = captured();
      const logger = createRootLogger({ level: 'info', requestLines }, stream);
      const fastify: FastifyInstance = Fastify({ genReqId: () => 'fastify-id' });
      fastifyRequestLogging(fastify, logger, requestLines);
      fastify.post('/turns', async (request) => {
        logger.info({ body: request.body }, 'in the handler');
        return { ok: true };
      });
      await fastify.listen({ port: 0, host: '127.0.0.1' });
      close = () => fastify.close();
      const { port } = fastify.server.address() as AddressInfo;
      expect((await send(port, 'POST', '/turns', '{"a":1}')).status).toBe(200);
      await settle();
      const handled = lines.find((line) => line.msg === 'in the handler');
      expect(handled).toMatchObject({
        req: { id: 'fastify-id', method: 'POST', url: '/turns' },
        body: { a: 1 },
      });
      expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(
        requestLines ? 1 : 0,
      );
      await close();
      close = undefined;
    }
  });

  it('logs no `req` on lines written outside a request', () => {
    const { lines, stream } = captured();
    createRootLogger({ level: 'info', requestLines: false }, stream).info('starting');
    return settle().then(() => expect(lines[0]).not.toHaveProperty('req'));
  });
});
