import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LongtermMemoryModule, WorkingMemoryModule } from 'nest-agent-memory';
import { AgentMemoryMcpModule } from '../../src/modules/mcp/index.js';
import { callOk, callTool, connectMcp, textOf } from './mcp-client.js';
import { listenWith } from './mcp-test-app.js';

describe('AgentMemoryMcpModule without the services a tool needs', () => {
  let app: INestApplication;
  let client: Client;

  beforeAll(async () => {
    const started = await listenWith([
      LongtermMemoryModule.forRoot({}),
      AgentMemoryMcpModule.forRoot({ longtermDisabledHint: 'set a URI' }),
    ]);
    app = started.app;
    client = await connectMcp(`${started.url}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('says which module is missing or off, as a tool error', async () => {
    const off = await callTool(client, 'memory_get', { entityId: 'u', key: 'k' });
    expect(off.isError).toBe(true);
    expect(textOf(off)).toMatch(/^Service Unavailable: .*; set a URI$/);
    const absent = await callTool(client, 'working_memory_list', { conversationId: 'c' });
    expect(textOf(absent)).toBe(
      'Service Unavailable: This tool needs WorkingMemoryModule, which the application does not import',
    );
  });
});

describe('AgentMemoryMcpModule in an app without a body parser', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await listenWith(
      [
        WorkingMemoryModule.forRoot({ backend: 'memory' }),
        AgentMemoryMcpModule.forRoot({ maxRequestBodyBytes: 2048 }),
      ],
      { bodyParser: false },
    ));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('reads the body itself, and refuses one over maxRequestBodyBytes with 413', async () => {
    const client = await connectMcp(`${url}/mcp`);
    try {
      expect(await callOk(client, 'working_memory_list', { conversationId: 'c' })).toMatchObject({
        entries: [],
      });
      await expect(
        callTool(client, 'working_memory_get', { conversationId: 'c', key: 'k'.repeat(4096) }),
      ).rejects.toMatchObject({
        code: 413,
        message: expect.stringContaining('Request body must not exceed 2048 bytes'),
      });
    } finally {
      await client.close();
    }
  });

  it('refuses unknown options at bootstrap', async () => {
    await expect(
      Test.createTestingModule({
        imports: [AgentMemoryMcpModule.forRoot({ pageBytes: 10 } as never)],
      }).compile(),
    ).rejects.toThrow(/pageBytes/);
    expect(() => AgentMemoryMcpModule.forRoot({ path: '' })).toThrow(/path/);
  });
});
