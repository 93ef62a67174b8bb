import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { appPerSuite, bootApp, embeddedEnv, STORAGE_LAYOUTS } from '../support/app-harness.js';
import { callOk, callTool, connectMcp, textOf } from './mcp-client.js';

const KEY_A = 'key-of-tenant-a-0001';
const KEY_B = 'key-of-tenant-b-0001';
const A = { Authorization: `Bearer ${KEY_A}` };
const B = { Authorization: `Bearer ${KEY_B}` };

/** `POST /mcp` of the built example app, behind its API keys, on two storage layouts. */
describe.each(STORAGE_LAYOUTS.slice(0, 2))(
  'the example app’s MCP endpoint on %s',
  (_label, layout) => {
    const running = appPerSuite(
      () => ({
        ...layout(),
        API_KEYS: `tenantA:${KEY_A},tenantB:${KEY_B}`,
        HTTP_BODY_LIMIT: '64kb',
        LONGTERM_MAX_VALUE_BYTES: '1kb',
      }),
      { beforeAll, afterAll },
    );
    const http = () => request(running().url);
    const endpoint = () => `${running().url}/mcp`;
    // Each test its own entity and conversation: tests run in any order.
    let entity: string;
    let conversation: string;
    beforeEach(() => {
      entity = `mcp-${randomUUID()}`;
      conversation = `mcp-${randomUUID()}`;
    });
    let tenantA: Client;
    let tenantB: Client;
    /** What tenant A holds: a record and a working-memory entry. */
    const seedA = async () => {
      await callOk(tenantA, 'memory_save', {
        entityId: entity,
        key: 'profile/job',
        value: 'Caroline works as a counselor at a youth center',
      });
      await http()
        .put(`/conversations/${conversation}/working-memory/plan`)
        .set(A)
        .send({ value: ['step 1 done'] })
        .expect(204);
    };

    beforeAll(async () => {
      tenantA = await connectMcp(endpoint(), A);
      tenantB = await connectMcp(endpoint(), B);
    });
    afterAll(async () => {
      await tenantA?.close();
      await tenantB?.close();
    });

    it('refuses a connection without a key or with a wrong one (401), as the REST API does', async () => {
      await expect(connectMcp(endpoint())).rejects.toMatchObject({ code: 401 });
      await expect(
        connectMcp(endpoint(), { Authorization: 'Bearer not-a-key-of-anyone-0001' }),
      ).rejects.toMatchObject({ code: 401 });
      const refused = await http()
        .post('/mcp')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Missing bearer token (Authorization: Bearer <key>)',
      });
      await http().get('/mcp').expect(401);
      await http().get('/mcp').set(A).expect(405);
    });

    it('lists the memory tools', async () => {
      const { tools } = await tenantA.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'formation_failures',
        'formation_jobs',
        'formation_rerun',
        'formed_memory_get',
        'formed_memory_list',
        'formed_memory_search',
        'memory_correct',
        'memory_delete',
        'memory_forget',
        'memory_get',
        'memory_list',
        'memory_recall',
        'memory_save',
        'memory_search',
        'profile_get',
        'profile_patch',
        'working_memory_get',
        'working_memory_list',
      ]);
      for (const tool of tools) expect(tool.inputSchema.additionalProperties).toBe(false);
    });

    it('reads and patches the entity’s profile as the REST API does, per tenant', async () => {
      const missing = await callTool(tenantA, 'profile_get', { entityId: entity });
      expect(textOf(missing)).toBe(`Not Found: ${entity} has no profile yet`);
      const patched = await callOk(tenantA, 'profile_patch', {
        entityId: entity,
        patch: { name: 'Caroline', city: 'Lisbon' },
      });
      expect(patched).toMatchObject({ document: { name: 'Caroline', city: 'Lisbon' }, version: 1 });
      await callOk(tenantA, 'profile_patch', { entityId: entity, patch: { city: null } });
      const overRest = await http().get(`/entities/${entity}/profile`).set(A).expect(200);
      expect(overRest.body).toMatchObject({ document: { name: 'Caroline' }, version: 2 });
      expect(await callOk(tenantA, 'profile_get', { entityId: entity })).toEqual(overRest.body);
      const refused = await callTool(tenantA, 'profile_patch', {
        entityId: entity,
        patch: { shoeSize: 42 },
      });
      expect(textOf(refused)).toMatch(
        /^Unprocessable Entity: .*must NOT have additional properties/,
      );
      // Tenant B's entity of the same id is another entity.
      expect((await callTool(tenantB, 'profile_get', { entityId: entity })).isError).toBe(true);
    });

    it('calls each tool on the same records the REST API serves the tenant', async () => {
      const saved = await callOk(tenantA, 'memory_save', {
        entityId: entity,
        key: 'profile/job',
        value: 'Caroline works as a counselor at a youth center',
      });
      expect(saved).toMatchObject({
        applied: true,
        record: { entityId: entity, key: 'profile/job' },
      });
      // Written over MCP, read over REST with the same ids: the same tenant scoping.
      const overRest = await http()
        .get(`/entities/${entity}/memories/${encodeURIComponent('profile/job')}`)
        .set(A)
        .expect(200);
      expect(overRest.body).toEqual(saved['record'] as object);
      await http()
        .put(`/entities/${entity}/memories/${encodeURIComponent('profile/city')}`)
        .set(A)
        .send({ value: { city: 'Lisbon' } })
        .expect(200);
      expect(
        await callOk(tenantA, 'memory_get', { entityId: entity, key: 'profile/city' }),
      ).toMatchObject({ entityId: entity, key: 'profile/city', value: { city: 'Lisbon' } });
      const listed = await callOk(tenantA, 'memory_list', {
        entityId: entity,
        prefix: 'profile/',
      });
      expect((listed['records'] as Array<{ key: string }>).map((record) => record.key)).toEqual([
        'profile/city',
        'profile/job',
      ]);
      const recalled = await callOk(tenantA, 'memory_recall', {
        entityId: entity,
        query: 'Is Caroline a counselor?',
      });
      expect((recalled['hits'] as Array<{ key: string }>).map((hit) => hit.key)).toEqual([
        'profile/job',
      ]);
      expect(
        await callOk(tenantA, 'memory_delete', { entityId: entity, key: 'profile/city' }),
      ).toEqual({ applied: true });
      await http()
        .get(`/entities/${entity}/memories/${encodeURIComponent('profile/city')}`)
        .set(A)
        .expect(404);

      await http()
        .put(`/conversations/${conversation}/working-memory/plan`)
        .set(A)
        .send({ value: ['step 1 done'] })
        .expect(204);
      expect(
        await callOk(tenantA, 'working_memory_list', { conversationId: conversation }),
      ).toEqual({
        conversationId: conversation,
        sizeBytes: expect.any(Number),
        entries: [{ key: 'plan', value: ['step 1 done'], sizeBytes: expect.any(Number) }],
      });
      expect(
        await callOk(tenantA, 'working_memory_get', { conversationId: conversation, key: 'plan' }),
      ).toEqual({ key: 'plan', value: ['step 1 done'], sizeBytes: expect.any(Number) });
    });

    it('shows the second tenant nothing of the first', async () => {
      await seedA();
      const missing = await callTool(tenantB, 'memory_get', {
        entityId: entity,
        key: 'profile/job',
      });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toBe(`Not Found: No memory "profile/job" for ${entity}`);
      expect(await callOk(tenantB, 'memory_list', { entityId: entity })).toEqual({ records: [] });
      expect(
        await callOk(tenantB, 'memory_recall', { entityId: entity, query: 'caroline counselor' }),
      ).toEqual({ hits: [] });
      expect(
        await callOk(tenantB, 'working_memory_list', { conversationId: conversation }),
      ).toEqual({
        conversationId: conversation,
        sizeBytes: 0,
        entries: [],
      });
      const entry = await callTool(tenantB, 'working_memory_get', {
        conversationId: conversation,
        key: 'plan',
      });
      expect(entry.isError).toBe(true);
      // And what B writes under the same ids stays B's.
      await callOk(tenantB, 'memory_save', { entityId: entity, key: 'profile/job', value: 'B' });
      expect(
        await callOk(tenantA, 'memory_get', { entityId: entity, key: 'profile/job' }),
      ).toMatchObject({ value: 'Caroline works as a counselor at a youth center' });
    });

    it('answers bad input with tool errors, and the app’s limits as the REST API does', async () => {
      const badId = await callTool(tenantA, 'memory_get', { entityId: 'tenantB/x', key: 'k' });
      expect(badId.isError).toBe(true);
      expect(textOf(badId)).toContain('entityId must be 1–200 characters');
      const noValue = await callTool(tenantA, 'memory_save', { entityId: entity, key: 'k' });
      expect(noValue.isError).toBe(true);
      expect(textOf(noValue)).toContain('value is required');
      const tooLarge = await callTool(tenantA, 'memory_save', {
        entityId: entity,
        key: 'big',
        value: 'x'.repeat(4096),
      });
      expect(tooLarge.isError).toBe(true);
      expect(tooLarge.structuredContent).toMatchObject({
        statusCode: 413,
        error: 'Payload Too Large',
      });
      // Over HTTP_BODY_LIMIT: refused by the app's body limit before any tool runs.
      await expect(
        callTool(tenantA, 'memory_save', {
          entityId: entity,
          key: 'huge',
          value: 'x'.repeat(100_000),
        }),
      ).rejects.toMatchObject({ code: 413 });
    });

    it('answers a plain JSON-RPC POST without initialize first (stateless), in JSON', async () => {
      await seedA();
      const response = await http()
        .post('/mcp')
        .set(A)
        .set('Accept', 'application/json, text/event-stream')
        .send({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'memory_get', arguments: { entityId: entity, key: 'profile/job' } },
        })
        .expect(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(response.body).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        result: { structuredContent: { key: 'profile/job', entityId: entity } },
      });
    });

    it('refuses a JSON-RPC batch whole (400, nothing run), whether the platform parsed the body or not', async () => {
      const batch = ['b1', 'b2', 'b3'].map((key, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'memory_save', arguments: { entityId: entity, key, value: 'x' } },
      }));
      for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
        const refused = await http()
          .post('/mcp')
          .set(A)
          .set('Accept', 'application/json, text/event-stream')
          .set('Content-Type', contentType)
          .send(JSON.stringify(batch))
          .expect(400);
        expect(refused.body).toEqual({
          jsonrpc: '2.0',
          error: { code: -32600, message: expect.stringContaining('batches are not accepted') },
          id: null,
        });
      }
      for (const key of ['b1', 'b2', 'b3'])
        await http().get(`/entities/${entity}/memories/${key}`).set(A).expect(404);
    });

    it('leaves the JSON-RPC endpoint out of the OpenAPI document', async () => {
      const document = await http().get('/docs-json').set(A).expect(200);
      expect(Object.keys(document.body.paths)).not.toContain('/mcp');
      expect(Object.keys(document.body.paths)).toContain('/entities/{entityId}/recall');
    });
  },
);

describe('the example app’s MCP endpoint and a tenant’s budgets', () => {
  const running = appPerSuite(
    () => ({
      ...embeddedEnv(),
      API_KEYS: `tenantA:${KEY_A},tenantB:${KEY_B}`,
      RATE_LIMIT_MAX: '4',
      RATE_LIMIT_TTL_MS: '60000',
      HTTP_PAGE_BYTES: '4096',
    }),
    { beforeAll, afterAll },
  );
  const call = (headers: Record<string, string>, name: string, args: object, id = 1) =>
    request(running().url)
      .post('/mcp')
      .set(headers)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  it('counts every call against the rate limit, and holds a whole answer within the page budget', async () => {
    const entity = `budget-${randomUUID()}`;
    for (let i = 0; i < 2; i += 1)
      await call(A, 'memory_save', {
        entityId: entity,
        key: `k${i}`,
        value: 'y'.repeat(1_500),
      }).expect(200);
    // The answer carries its page twice (structured and as text): both within HTTP_PAGE_BYTES.
    const page = await call(A, 'memory_list', { entityId: entity, prefix: 'k' }).expect(200);
    expect(Buffer.byteLength(JSON.stringify(page.body.result))).toBeLessThanOrEqual(4096);
    expect(page.body.result.structuredContent.records).toHaveLength(1);
    expect(page.body.result.structuredContent.cursor).toEqual(expect.any(String));
    await call(A, 'memory_get', { entityId: entity, key: 'k0' }).expect(200);
    // The fifth call in the window is over RATE_LIMIT_MAX=4: 429, and nothing written.
    const limited = await call(A, 'memory_save', { entityId: entity, key: 'k9', value: 'z' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toEqual(expect.stringMatching(/^\d+$/));
    // Another tenant has budgets of its own.
    await call(B, 'memory_get', { entityId: entity, key: 'k9' }).expect(200);
  });
});

describe('the example app’s MCP endpoint at shutdown', () => {
  it('holds no stream open: SIGTERM with a connected client exits at once, cleanly', async () => {
    const app = await bootApp({ ...embeddedEnv(), API_KEYS: `tenantA:${KEY_A}` });
    const client = await connectMcp(`${app.url}/mcp`, A);
    try {
      await callOk(client, 'working_memory_list', { conversationId: 'c1' });
      const started = Date.now();
      app.kill('SIGTERM');
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await client.close();
    }
  });
});
