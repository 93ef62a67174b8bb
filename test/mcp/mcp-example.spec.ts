import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callOk, callTool, connectMcp } from './mcp-client.js';

import { McpServerModule } from '../../examples/mcp-server.module.js';

describe('example: McpServerModule (memory as MCP tools, tenants from a header)', () => {
  let app: INestApplication;
  let acme: Client;
  let zed: Client;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [McpServerModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
    acme = await connectMcp(url, { 'x-tenant': 'acme' });
    zed = await connectMcp(url, { 'x-tenant': 'zed' });
  });
  afterAll(async () => {
    await acme?.close();
    await zed?.close();
    await app?.close();
  });

  it('announces tools without list-change notifications (it is stateless)', () => {
    expect(acme.getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it('serves the tools at /mcp, one memory per tenant', async () => {
    await callOk(acme, 'memory_save', { entityId: 'ada', key: 'city', value: 'London' });
    expect(await callOk(acme, 'memory_get', { entityId: 'ada', key: 'city' })).toMatchObject({
      value: 'London',
    });
    const other = await callTool(zed, 'memory_get', { entityId: 'ada', key: 'city' });
    expect(other.isError).toBe(true);
  });

  it('answers an x-tenant header that is no tenant id with a 400 naming it, not a 500', async () => {
    for (const tenant of ['a b', '../etc', 'x'.repeat(51)]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-tenant': tenant,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toBe(
        'x-tenant must be 1–50 characters of letters, digits and _ - . : @',
      );
    }
  });

  it('takes a value as large as the parser allows: 100 kB by default, more once raised', async () => {
    const value = 'x'.repeat(150_000);
    await expect(
      callTool(acme, 'memory_save', { entityId: 'ada', key: 'large', value }),
    ).rejects.toMatchObject({ code: 413 });
    const moduleRef = await Test.createTestingModule({ imports: [McpServerModule] }).compile();
    const raised = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
    raised.useBodyParser('json', { limit: '1mb' });
    await raised.listen(0, '127.0.0.1');
    const client = await connectMcp(`${await raised.getUrl()}/mcp`, { 'x-tenant': 'acme' });
    try {
      expect(
        await callOk(client, 'memory_save', { entityId: 'ada', key: 'large', value }),
      ).toMatchObject({ applied: true });
      const over = await callTool(client, 'memory_save', {
        entityId: 'ada',
        key: 'larger',
        value: 'x'.repeat(300_000),
      });
      expect(over.isError).toBe(true);
      expect(over.structuredContent).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    } finally {
      await client.close();
      await raised.close();
    }
  });
});
