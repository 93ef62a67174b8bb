import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { Env } from '../../src/config/env.js';
import { type RunningApp, startApp } from '../support/http-app.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

const configurations: Array<[string, Env]> = [
  ['sqlite (the default)', { SQLITE_PATH: join(tempDir(), 'e2e.sqlite') }],
  ['postgres', { CHAT_MEMORY_BACKEND: 'postgres', DATABASE_URL: TEST_POSTGRES_URL }],
  ['mysql', { CHAT_MEMORY_BACKEND: 'mysql', DATABASE_URL: TEST_MYSQL_URL }],
  ['redis', { CHAT_MEMORY_BACKEND: 'redis', REDIS_URL: TEST_REDIS_URL }],
];

describe.each(configurations)('example app over HTTP on %s', (_label, env) => {
  let running: RunningApp;
  let store: ChatMemoryStore;
  const conversationId = `e2e/${Date.now()} ü`;
  const path = `/conversations/${encodeURIComponent(conversationId)}`;

  beforeAll(async () => {
    running = await startApp(env);
    store = running.app.get(CHAT_MEMORY_STORE);
  });
  afterAll(async () => {
    await running.close();
  });

  const get = (route: string) => fetch(`${running.baseUrl}${route}`);

  it('GET /health reports every connection healthy', async () => {
    const response = await get('/health');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      status: string;
      checks: Array<{ healthy: boolean; name: string }>;
    };
    expect(body.status).toBe('ok');
    expect(body.checks.length).toBeGreaterThan(0);
    expect(body.checks.every((check) => check.healthy)).toBe(true);
    // It needs no auth, so it tells an outsider nothing: opaque labels, no host, path or user.
    for (const check of body.checks)
      expect(check.name).toMatch(/^(postgres|mysql|sqlite|redis)(-\d+)?$/);
    const text = JSON.stringify(body);
    for (const secret of ['127.0.0.1', 'root', 'postgres@', '.sqlite', tempDir()])
      expect(text).not.toContain(secret);
  });

  it('GET messages returns an unknown conversation as empty, version 0', async () => {
    const response = await get(`/conversations/never-${Date.now()}/messages`);
    expect(response.status).toBe(200);
    expect((await response.json()) as { version: number; messages: unknown[] }).toMatchObject({
      version: 0,
      messages: [],
    });
  });

  it('GET messages returns the history, and ?last=N the newest N with the full version', async () => {
    await store.add(conversationId, [
      { id: 'm1', role: 'user', content: 'hello' },
      {
        id: 'm2',
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't1', name: 'clock', arguments: '{}' }],
      },
      { id: 'm3', role: 'tool', content: '12:00', toolCallId: 't1' },
      { id: 'm4', role: 'assistant', content: 'It is noon.' },
    ]);
    const all = (await (await get(`${path}/messages`)).json()) as {
      conversationId: string;
      version: number;
      messages: Array<{ id: string }>;
    };
    expect(all.conversationId).toBe(conversationId);
    expect(all.version).toBe(4);
    expect(all.messages.map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(all.messages[1]).toEqual({
      id: 'm2',
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 't1', name: 'clock', arguments: '{}' }],
    });
    const last = (await (await get(`${path}/messages?last=2`)).json()) as {
      version: number;
      messages: Array<{ id: string }>;
    };
    expect(last.version).toBe(4);
    expect(last.messages.map((m) => m.id)).toEqual(['m3', 'm4']);
  });

  it('rejects a bad ?last with a JSON 400', async () => {
    for (const last of ['abc', '-1', '1.5']) {
      const response = await get(`${path}/messages?last=${last}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as {
        statusCode: number;
        error: string;
        message: string;
      };
      expect(body.statusCode).toBe(400);
      expect(body.error).toBe('Bad Request');
      expect(body.message.length).toBeGreaterThan(0);
    }
  });

  it('rejects a conversation id over 255 bytes with a JSON 400', async () => {
    const response = await get(`/conversations/${'x'.repeat(300)}/messages`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('conversationId');
  });

  it('DELETE removes the conversation with a 204', async () => {
    const response = await fetch(`${running.baseUrl}${path}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await store.version(conversationId)).toBe(0);
  });
});
