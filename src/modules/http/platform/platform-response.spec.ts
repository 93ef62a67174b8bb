import { describe, expect, it } from '@jest/globals';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { rawResponse } from './platform-response.js';

/** A Fastify-like reply over a real Node response, with headers already set through the reply. */
function fastifyReply(headers: Record<string, string>) {
  const raw = new ServerResponse(new IncomingMessage(new Socket()));
  let hijacked = false;
  return {
    raw,
    sent: false,
    hijacked: () => hijacked,
    hijack: () => void (hijacked = true),
    getHeaders: () => headers,
    status: () => ({ send: () => undefined }),
  };
}

describe('platform responses on Fastify', () => {
  it('keeps the headers set through the reply when a handler takes Node’s response (MCP)', () => {
    const reply = fastifyReply({ 'x-app': 'kept', 'cache-control': 'no-store' });
    const raw = rawResponse(reply);
    expect(reply.hijacked()).toBe(true);
    expect(raw.getHeader('x-app')).toBe('kept');
    expect(raw.getHeader('cache-control')).toBe('no-store');
  });

  it('gives Express’s response as it is', () => {
    const response = new ServerResponse(new IncomingMessage(new Socket()));
    expect(rawResponse(response)).toBe(response);
  });
});
