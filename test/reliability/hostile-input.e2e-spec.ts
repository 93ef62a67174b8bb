import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compareCodePoints } from '../../src/common/canonical-json.js';
import { randomUUID } from 'node:crypto';
import { platformLayouts, appPerSuite, embeddedEnv } from '../support/app-harness.js';
import { type RawResponse, keepAlive, rawRequest, streamUntilAnswered } from './raw-http.js';

/** Every property runs this many cases, from this seed: failures replay with the same inputs. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_201);

/** Percent-encodes every byte but the unreserved ones (lone surrogates become U+FFFD, as in UTF-8). */
function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Hostile path segments: traversal, encodings, controls, unicode edge cases, metacharacters. */
const segment = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '..%2f..%2fetc%2fpasswd',
    '%2F',
    'a%2Fb',
    '%252e%252e',
    '%00',
    'a%00b',
    '%E2%80%AE',
    '%F0%9F%98%80',
    '%ED%A0%80',
    '%FF',
    '__proto__',
    'constructor',
    'prototype',
    "'%20OR%201%3D1%20--",
    '*',
    '%25',
    '_',
    'x'.repeat(300),
    'ok-id',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map(encodeSegment),
  fc
    .string({ unit: 'binary', minLength: 1, maxLength: 20 })
    .map(encodeURIComponent.bind(null))
    .filter(Boolean),
);

/** Hostile bodies: random and malformed JSON, deep nesting, huge strings, pollution keys. */
const body = fc.oneof(
  fc.json(),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc
    .integer({ min: 1, max: 20_000 })
    .map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1, max: 300_000 }).map((size) => JSON.stringify({ message: 'x'.repeat(size) })),
  fc.constantFrom(
    '{"__proto__":{"polluted":true},"message":"hi"}',
    '{"constructor":{"prototype":{"polluted":true}},"message":"hi"}',
    '{"message":"hi","entityId":"__proto__"}',
    '{"value":{"__proto__":{"polluted":true}},"seq":1}',
    '{"message":"\\u0000\\ud800\\u202e"}',
    '{"message":{"toString":1}}',
    'null',
    '[]',
    '',
  ),
  fc
    .record({ message: fc.string({ unit: 'binary', maxLength: 50 }), entityId: segment })
    .map((value) => JSON.stringify(value)),
  fc
    .record({ value: fc.jsonValue(), seq: fc.oneof(fc.integer(), fc.double(), fc.string()) })
    .map((value) => JSON.stringify(value)),
);

/** What every answer must be: never a 5xx; a 4xx is a JSON error naming its own status. */
function assertClean(response: RawResponse, what: string): void {
  if (response.status >= 500 || response.status < 200)
    throw new Error(`${what} → ${response.status} ${response.text.slice(0, 300)}`);
  if (response.status >= 400) {
    const error = response.json as { statusCode?: unknown; message?: unknown } | undefined;
    if (error?.statusCode !== response.status || typeof error.message !== 'string')
      throw new Error(
        `${what} → ${response.status} without a JSON error: ${response.text.slice(0, 300)}`,
      );
  }
}
/** The HTTP limits every layout runs with: short header and body timeouts, no rate limit. */
const LIMITS = {
  RATE_LIMIT_MAX: '0',
  HTTP_HEADERS_TIMEOUT_MS: '1000',
  HTTP_REQUEST_TIMEOUT_MS: '2000',
};
/** Tells this run's rows from earlier runs' on the shared servers. */
const RUN = randomUUID().slice(0, 8);

afterAll(() => keepAlive.destroy());

// On every storage layout: the fuzz reaches each backend's own queries and scripts.
describe.each(platformLayouts())(
  'hostile input over HTTP on %s (fast-check, seeded)',
  (_name, env) => {
    const running = appPerSuite(() => ({ ...env(), ...LIMITS }), { beforeAll, afterAll });
    const base = () => running().url;

    const fuzz = (
      arbitrary: fc.Arbitrary<{ method: string; path: string; body?: string }>,
    ): Promise<void> =>
      fc.assert(
        fc.asyncProperty(arbitrary, async ({ method, path, body: text }) => {
          assertClean(await rawRequest(base(), method, path, text), `${method} ${path}`);
        }),
        { numRuns: RUNS, seed: SEED },
      );

    const alive = async () => expect((await rawRequest(base(), 'GET', '/health')).status).toBe(200);

    it(`turns: ${RUNS} hostile ids and bodies, never a 5xx`, async () => {
      await fuzz(
        fc.record({ id: segment, body }).map(({ id, body: text }) => ({
          method: 'POST',
          path: `/conversations/${id}/turns`,
          body: text,
        })),
      );
      await alive();
    }, 300_000);

    it(`the AI SDK chat route: ${RUNS} hostile ids and bodies, never a 5xx`, async () => {
      await fuzz(
        fc.record({ id: segment, body }).map(({ id, body: text }) => ({
          method: 'POST',
          path: `/conversations/${id}/chat`,
          body: text,
        })),
      );
      await alive();
    }, 300_000);

    it(`reads: ${RUNS} hostile ids, queries and cursors, never a 5xx`, async () => {
      const query = fc.string({ unit: 'binary', maxLength: 30 }).map(encodeSegment);
      await fuzz(
        fc
          .record({
            id: segment,
            value: query,
            route: fc.constantFrom(
              (id: string, q: string) => `/conversations/${id}/messages?last=${q}`,
              (id: string, q: string) => `/conversations/${id}/messages?before=${q}&limit=${q}`,
              (_id: string, q: string) => `/conversations?limit=${q}`,
              (_id: string, q: string) => `/conversations?cursor=${q}`,
              (id: string) => `/runs/${id}`,
              (id: string) => `/runs/${id}/steps`,
              (id: string, q: string) => `/conversations/${id}/runs?cursor=${q}`,
              (id: string, q: string) => `/entities/${id}/memories?prefix=${q}&limit=${q}`,
            ),
          })
          .map(({ id, value, route }) => ({ method: 'GET', path: route(id, value) })),
      );
      await alive();
    }, 300_000);

    it(`long-term and working memory writes: ${RUNS} hostile ids, keys and values, never a 5xx`, async () => {
      await fuzz(
        fc
          .record({
            id: segment,
            key: segment,
            body,
            route: fc.constantFrom(
              ['PUT', (id: string, key: string) => `/entities/${id}/memories/${key}`],
              ['GET', (id: string, key: string) => `/entities/${id}/memories/${key}`],
              ['DELETE', (id: string, key: string) => `/entities/${id}/memories/${key}?seq=${key}`],
              ['PUT', (id: string, key: string) => `/conversations/${id}/working-memory/${key}`],
              ['GET', (id: string, key: string) => `/conversations/${id}/working-memory/${key}`],
              ['DELETE', (id: string) => `/conversations/${id}`],
            ) as fc.Arbitrary<[string, (id: string, key: string) => string]>,
          })
          .map(({ id, key, body: text, route: [method, path] }) => ({
            method,
            path: path(id, key),
            ...(method === 'PUT' ? { body: text } : {}),
          })),
      );
      await alive();
    }, 300_000);

    it('refuses prototype keys anywhere in a body with a 400, and Object.prototype stays clean', async () => {
      for (const [path, text] of [
        ['/entities/pollution/memories/k', '{"value":{"__proto__":{"polluted":"yes"}},"seq":1}'],
        [
          '/entities/pollution/memories/k',
          '{"value":{"a":[{"constructor":{"prototype":1}}]},"seq":1}',
        ],
        ['/conversations/pollution/working-memory/k', '{"value":{"prototype":{"polluted":"yes"}}}'],
      ] as const) {
        const put = await rawRequest(base(), 'PUT', path, text);
        expect(put.status).toBe(400);
        expect((put.json as { message: string }).message).toMatch(
          /__proto__|constructor|prototype/,
        );
      }
      const turn = await rawRequest(
        base(),
        'POST',
        '/conversations/pollution/turns',
        '{"message":"hi","__proto__":{"polluted":"yes"}}',
      );
      expect(turn.status).toBe(400);
      // Nothing was written, and a fresh empty object stays empty.
      expect((await rawRequest(base(), 'GET', '/entities/pollution/memories/k')).status).toBe(404);
      await rawRequest(base(), 'PUT', '/entities/pollution/memories/empty', '{"value":{},"seq":1}');
      const empty = await rawRequest(base(), 'GET', '/entities/pollution/memories/empty');
      expect((empty.json as { value: unknown }).value).toEqual({});
      expect(
        (await rawRequest(base(), 'GET', '/conversations/pollution/messages')).json,
      ).toMatchObject({ version: 0 });
    });

    it('finds keys with SQL and Lua metacharacters literally: a prefix search is exactly startsWith', async () => {
      const alphabet = [
        '%',
        '_',
        "'",
        '"',
        '\\',
        '*',
        '[',
        ']',
        '?',
        'a',
        'b',
        '-',
        ':',
        '/',
        'é',
        '😀',
      ];
      const key = fc
        .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 5 })
        .map((chars) => chars.join(''));
      let entity = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(key, { minLength: 1, maxLength: 12 }),
          fc.array(fc.constantFrom(...alphabet), { maxLength: 3 }).map((chars) => chars.join('')),
          async (keys, prefix) => {
            const id = `inject-${SEED}-${RUN}-${(entity += 1)}`;
            for (const k of keys) {
              const put = await rawRequest(
                base(),
                'PUT',
                `/entities/${id}/memories/${encodeSegment(k)}`,
                JSON.stringify({ value: k, seq: 1 }),
              );
              expect(put.status).toBe(200);
            }
            const found = await rawRequest(
              base(),
              'GET',
              `/entities/${id}/memories?prefix=${encodeSegment(prefix)}&limit=100`,
            );
            expect(found.status).toBe(200);
            const records = (found.json as { records: Array<{ key: string; value: string }> })
              .records;
            expect(records.map((record) => record.key)).toEqual(
              keys.filter((k) => k.startsWith(prefix)).sort(compareCodePoints),
            );
            for (const record of records) expect(record.value).toBe(record.key);
          },
        ),
        { numRuns: Math.max(20, Math.round(RUNS / 20)), seed: SEED },
      );
    }, 300_000);
  },
);

describe('hostile transport over HTTP (embedded default)', () => {
  const running = appPerSuite(() => ({ ...embeddedEnv(), ...LIMITS }), { beforeAll, afterAll });
  const base = () => running().url;
  const alive = async () => expect((await rawRequest(base(), 'GET', '/health')).status).toBe(200);

  it('cuts off a slow-loris client that never finishes its headers', async () => {
    let sent = 0;
    const result = await streamUntilAnswered(
      base(),
      'GET /health HTTP/1.1\r\nHost: localhost\r\n',
      () => (sent++ < 100 ? Buffer.from(`X-Slow-${sent}: y\r\n`) : undefined),
      200,
      10_000,
    );
    // HTTP_HEADERS_TIMEOUT_MS=1000, checked every 500 ms: cut off well before the 10 s guard.
    expect(result.elapsedMs).toBeLessThan(4_000);
    expect(result.closed || /^HTTP\/1\.1 408/.test(result.answer)).toBe(true);
  }, 20_000);

  it('cuts off a client that sends its body too slowly', async () => {
    let sent = 0;
    const result = await streamUntilAnswered(
      base(),
      'POST /conversations/slow/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      () => (sent++ < 200 ? Buffer.from(' ') : undefined),
      100,
      15_000,
    );
    expect(result.elapsedMs).toBeLessThan(6_000);
    expect(result.closed || /^HTTP\/1\.1 408/.test(result.answer)).toBe(true);
  }, 20_000);

  it('refuses a 100 MB body with 413 from its Content-Length, without reading it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let left = 100 * 1024 * 1024;
    const result = await streamUntilAnswered(
      base(),
      'POST /conversations/big/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n',
      () => {
        if (left <= 0) return undefined;
        left -= chunk.length;
        return chunk;
      },
    );
    expect(result.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(result.answer).toMatch(/connection: close/i);
    // Answered before the body: at most what the socket buffers took while the 413 was on its way.
    expect(result.writtenAtAnswer).toBeLessThan(8 * 1024 * 1024);
    expect(result.closed).toBe(true);
  }, 30_000);

  it('refuses a 100 MB chunked body with 413 once it passes the limit', async () => {
    const data = Buffer.alloc(64 * 1024, 'a');
    const framed = Buffer.concat([
      Buffer.from(`${data.length.toString(16)}\r\n`),
      data,
      Buffer.from('\r\n'),
    ]);
    let left = 100 * 1024 * 1024;
    const result = await streamUntilAnswered(
      base(),
      'POST /conversations/big/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      () => {
        if (left <= 0) return undefined;
        left -= data.length;
        return framed;
      },
    );
    expect(result.answer).toMatch(/^HTTP\/1\.1 413/);
    // The limit is 1 MiB: answered once it was passed, not after 100 MB.
    expect(result.writtenAtAnswer).toBeLessThan(16 * 1024 * 1024);
    expect(result.closed).toBe(true);
    await alive();
  }, 30_000);
});
