import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callOk, callTool, connectMcp } from './mcp-client.js';

import { McpServerModule } from '../../examples/mcp-server.module.js';

describe('example: McpServerModule (memory as MCP tools, tenants from a header)', () => {
  let app: INestApplication;
  let acme: Client;
  let zed: Client;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [McpServerModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${await app.getUrl()}/mcp`;
    acme = await connectMcp(url, { 'x-tenant': 'acme' });
    zed = await connectMcp(url, { 'x-tenant': 'zed' });
  });
  afterAll(async () => {
    await acme?.close();
    await zed?.close();
    await app?.close();
  });

  it('serves the tools at /mcp, one memory per tenant', async () => {
    await callOk(acme, 'memory_save', { entityId: 'ada', key: 'city', value: 'London' });
    expect(await callOk(acme, 'memory_get', { entityId: 'ada', key: 'city' })).toMatchObject({
      value: 'London',
    });
    const other = await callTool(zed, 'memory_get', { entityId: 'ada', key: 'city' });
    expect(other.isError).toBe(true);
  });
});
