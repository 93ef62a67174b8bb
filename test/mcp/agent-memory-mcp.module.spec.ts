import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import {
  FormedMemories,
  LongtermMemoryModule,
  LongtermMemoryService,
  MemoryFormation,
  PlainStatementsFormationModel,
  WorkingMemoryModule,
  WorkingMemoryService,
} from 'nest-agent-memory';
import type { TenantRequest, TenantResolver } from 'nest-agent-memory/http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  AgentMemoryMcpModule,
  AgentMemoryMcpServerFactory,
  MCP_MEMORY_TOOL_NAMES,
} from '../../src/modules/mcp/index.js';
import { callOk, callTool, connectMcp, textOf } from './mcp-client.js';
import { listenWith } from './mcp-test-app.js';

/** The tenant named by the `x-tenant` header (none: the default tenant). */
class HeaderTenantResolver implements TenantResolver {
  resolve(request: TenantRequest): string | undefined {
    const tenant = request.headers['x-tenant'];
    return typeof tenant === 'string' ? tenant : undefined;
  }
}

/** The module mounted in a plain Nest app of its own, the way a user mounts it. */
describe('AgentMemoryMcpModule in a plain Nest app', () => {
  let app: INestApplication;
  let endpoint: string;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    ({ app, url: endpoint } = await listenWith([
      LongtermMemoryModule.forRoot({ uri: 'memory://' }),
      WorkingMemoryModule.forRoot({ backend: 'memory' }),
      AgentMemoryMcpModule.forRoot({ path: 'agent/mcp', tenantResolver: HeaderTenantResolver }),
    ]));
    endpoint += '/agent/mcp';
    alice = await connectMcp(endpoint, { 'x-tenant': 'alice' });
    bob = await connectMcp(endpoint, { 'x-tenant': 'bob' });
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await app?.close();
  });

  it('lists every tool with a strict input schema of the REST API’s id rules', async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...MCP_MEMORY_TOOL_NAMES]);
    expect(MCP_MEMORY_TOOL_NAMES).toEqual([
      'memory_save',
      'memory_get',
      'memory_delete',
      'memory_list',
      'memory_recall',
      'formed_memory_list',
      'formed_memory_search',
      'formed_memory_get',
      'memory_correct',
      'memory_forget',
      'formation_jobs',
      'formation_failures',
      'formation_rerun',
      'profile_get',
      'profile_patch',
      'working_memory_list',
      'working_memory_get',
      'memory_search',
    ]);
    const save = tools.find((tool) => tool.name === 'memory_save')!;
    expect(save.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: expect.arrayContaining(['entityId', 'key']),
      properties: {
        entityId: { type: 'string', pattern: '^[A-Za-z0-9_.:@-]{1,200}$' },
        seq: { type: 'integer', minimum: 0 },
      },
    });
    expect(save.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const recall = tools.find((tool) => tool.name === 'memory_recall')!;
    expect(recall.annotations).toMatchObject({ readOnlyHint: true });
    expect(recall.inputSchema.properties!['scope']).toMatchObject({
      enum: ['records', 'messages', 'all'],
    });
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(40);
  });

  it('saves, reads, searches, recalls and deletes long-term records', async () => {
    const saved = await callOk(alice, 'memory_save', {
      entityId: 'user-1',
      key: 'profile/city',
      value: { city: 'Lisbon', note: 'moved to Lisbon in 2023' },
    });
    expect(saved).toEqual({
      applied: true,
      record: {
        entityId: 'user-1',
        key: 'profile/city',
        value: { city: 'Lisbon', note: 'moved to Lisbon in 2023' },
        seq: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    await callOk(alice, 'memory_save', { entityId: 'user-1', key: 'profile/job', value: 'nurse' });
    await callOk(alice, 'memory_save', { entityId: 'user-1', key: 'diary/1', value: 'rainy day' });
    expect(
      await callOk(alice, 'memory_get', { entityId: 'user-1', key: 'profile/job' }),
    ).toMatchObject({ entityId: 'user-1', key: 'profile/job', value: 'nurse' });
    const firstPage = await callOk(alice, 'memory_list', {
      entityId: 'user-1',
      prefix: 'profile/',
      limit: 1,
    });
    expect((firstPage['records'] as Array<{ key: string }>).map((r) => r.key)).toEqual([
      'profile/city',
    ]);
    const secondPage = await callOk(alice, 'memory_list', {
      entityId: 'user-1',
      prefix: 'profile/',
      limit: 1,
      cursor: firstPage['cursor'],
    });
    expect((secondPage['records'] as Array<{ key: string }>).map((r) => r.key)).toEqual([
      'profile/job',
    ]);
    // The earlier name of memory_list answers the same until 0.3, and says it is deprecated.
    expect(
      await callOk(alice, 'memory_search', { entityId: 'user-1', prefix: 'profile/', limit: 1 }),
    ).toEqual(firstPage);
    const { tools } = await alice.listTools();
    expect(tools.find((tool) => tool.name === 'memory_search')?.description).toMatch(
      /^Deprecated \(removed in 0\.3\): the earlier name of memory_list\./,
    );
    const recalled = await callOk(alice, 'memory_recall', { entityId: 'user-1', query: 'lisbon' });
    expect(recalled['hits']).toEqual([
      expect.objectContaining({
        source: 'record',
        key: 'profile/city',
        record: expect.objectContaining({ entityId: 'user-1' }),
      }),
    ]);
    expect(await callOk(alice, 'memory_delete', { entityId: 'user-1', key: 'diary/1' })).toEqual({
      applied: true,
    });
    const gone = await callTool(alice, 'memory_get', { entityId: 'user-1', key: 'diary/1' });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toBe('Not Found: No memory "diary/1" for user-1');
  });

  it('lists and reads working memory', async () => {
    const workingMemory = app.get(WorkingMemoryService);
    await workingMemory.for('alice/chat-1').set('plan', ['step 1 done']);
    await workingMemory.for('alice/chat-1').set('mood', 'curious');
    const listed = await callOk(alice, 'working_memory_list', { conversationId: 'chat-1' });
    expect(listed).toEqual({
      conversationId: 'chat-1',
      sizeBytes: expect.any(Number),
      entries: [
        { key: 'plan', value: ['step 1 done'], sizeBytes: expect.any(Number) },
        { key: 'mood', value: 'curious', sizeBytes: expect.any(Number) },
      ],
    });
    expect(
      await callOk(alice, 'working_memory_get', { conversationId: 'chat-1', key: 'mood' }),
    ).toEqual({ key: 'mood', value: 'curious', sizeBytes: expect.any(Number) });
    const missing = await callTool(alice, 'working_memory_get', {
      conversationId: 'chat-1',
      key: 'nope',
    });
    expect(textOf(missing)).toBe('Not Found: No working-memory entry "nope"');
  });

  it('stores ids under the tenant as the REST API does, and shows a tenant nothing of another', async () => {
    await callOk(alice, 'memory_save', {
      entityId: 'shared-id',
      key: 'secret',
      value: 'alice only',
    });
    const store = app.get(LongtermMemoryService).store;
    expect(await store.load('alice/shared-id', 'secret')).toMatchObject({ value: 'alice only' });
    expect(await store.load('shared-id', 'secret')).toBeNull();
    const fromBob = await callTool(bob, 'memory_get', { entityId: 'shared-id', key: 'secret' });
    expect(fromBob.isError).toBe(true);
    expect(await callOk(bob, 'memory_list', { entityId: 'shared-id' })).toEqual({ records: [] });
    expect(await callOk(bob, 'memory_recall', { entityId: 'shared-id', query: 'alice' })).toEqual({
      hits: [],
    });
    expect(await callOk(bob, 'working_memory_list', { conversationId: 'chat-1' })).toEqual({
      conversationId: 'chat-1',
      sizeBytes: 0,
      entries: [],
    });
    // Bob's delete is a tombstone of his own entity: Alice's record stays.
    await callOk(bob, 'memory_delete', { entityId: 'shared-id', key: 'secret' });
    expect(await store.load('alice/shared-id', 'secret')).toMatchObject({ value: 'alice only' });
  });

  it('answers invalid input with tool errors that name the problem', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['memory_save', { entityId: 'a/b', key: 'k', value: 1 }, /entityId must be 1–200 characters/],
      ['memory_save', { entityId: 'u', key: 'k' }, /value is required/],
      ['memory_save', { entityId: 'u', key: 'k', value: null }, /value is required/],
      ['memory_save', { entityId: 'u', key: 'k', value: 1, seq: 1.5 }, /seq/],
      ['memory_save', { entityId: 'u', key: 'k', value: { constructor: 1 } }, /"constructor"/],
      ['memory_get', { entityId: 'u', key: 'k', extra: true }, /extra/],
      ['memory_list', { entityId: 'u', limit: 0 }, /limit/],
      ['memory_list', { entityId: 'u', cursor: '!!' }, /cursor is not one this tool gave/],
      ['memory_recall', { entityId: 'u', query: 'x', scope: 'everything' }, /scope/],
      ['memory_recall', { entityId: 'u', query: 'x', cursor: '100' }, /cursor is not one/],
      ['working_memory_list', { conversationId: '' }, /conversationId must be/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await callTool(alice, tool, args);
      expect({ tool, args, isError: result.isError }).toEqual({ tool, args, isError: true });
      expect(textOf(result)).toMatch(message);
    }
    const deep = await callTool(alice, 'memory_save', {
      entityId: 'u',
      key: 'k',
      value: JSON.parse('['.repeat(150) + ']'.repeat(150)),
    });
    expect(textOf(deep)).toMatch(/value is nested deeper than 100 levels/);
  });

  it('lists, reads, corrects and retracts formed memories of the tenant’s entity', async () => {
    const memories = new FormedMemories(app.get(LongtermMemoryService));
    const formation = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      async (_job, _step, compute) => compute(),
    );
    await formation.run({
      jobId: 'mcp-job-1',
      entityId: 'alice/formed-1',
      conversationId: 'alice/chat-9',
      runId: 'run-9',
      messages: [{ id: 'run-9:0', role: 'user', text: 'I live in Oslo. I like skiing.' }],
      context: [],
      observedAt: Date.UTC(2026, 0, 2),
      seq: await memories.nextSeq('alice/formed-1'),
    });
    const listed = (await callOk(alice, 'formed_memory_list', { entityId: 'formed-1' })) as {
      memories: Array<{ id: string; text: string; entityId: string; sources: unknown[] }>;
    };
    expect(listed.memories.map((m) => m.text).sort()).toEqual([
      'The user likes skiing',
      'The user lives in Oslo',
    ]);
    const oslo = listed.memories.find((m) => m.text.includes('Oslo'))!;
    // By words, best first: what holds now, with ids as the tenant knows them.
    const found = (await callOk(alice, 'formed_memory_search', {
      entityId: 'formed-1',
      query: 'where does she live',
    })) as { memories: Array<{ id: string; entityId: string }> };
    expect(found.memories[0]).toMatchObject({ id: oslo.id, entityId: 'formed-1' });
    expect(
      await callOk(bob, 'formed_memory_search', { entityId: 'formed-1', query: 'Oslo' }),
    ).toEqual({ memories: [] });
    const tooMany = await callTool(alice, 'formed_memory_search', {
      entityId: 'formed-1',
      query: 'Oslo',
      limit: 101,
    });
    expect(tooMany.isError).toBe(true);
    // Ids as the tenant knows them.
    expect(oslo).toMatchObject({
      entityId: 'formed-1',
      sources: [{ conversationId: 'chat-9', messageIds: ['run-9:0'], runId: 'run-9' }],
    });
    const corrected = (await callOk(alice, 'memory_correct', {
      entityId: 'formed-1',
      id: oslo.id,
      text: 'The user lives in Bergen',
    })) as { id: string; supersedes: string };
    expect(corrected.supersedes).toBe(oslo.id);
    const history = (await callOk(alice, 'formed_memory_get', {
      entityId: 'formed-1',
      id: corrected.id,
    })) as { history: Array<{ text: string }> };
    expect(history.history.map((m) => m.text)).toEqual([
      'The user lives in Oslo',
      'The user lives in Bergen',
    ]);
    const stale = await callTool(alice, 'memory_correct', {
      entityId: 'formed-1',
      id: oslo.id,
      text: 'The user lives in Tromsø',
    });
    expect(textOf(stale)).toMatch(/^Conflict: .*newest version is/);
    await callOk(alice, 'memory_forget', { entityId: 'formed-1', id: corrected.id });
    const left = (await callOk(alice, 'formed_memory_list', { entityId: 'formed-1' })) as {
      memories: Array<{ text: string }>;
    };
    expect(left.memories.map((m) => m.text)).toEqual(['The user likes skiing']);
    // A forgotten memory is found no more.
    expect(
      await callOk(alice, 'formed_memory_search', { entityId: 'formed-1', query: 'Bergen Oslo' }),
    ).toEqual({ memories: [] });
    // Another tenant: the same entity id is another entity.
    expect(await callOk(bob, 'formed_memory_list', { entityId: 'formed-1' })).toEqual({
      memories: [],
    });
    const missing = await callTool(bob, 'formed_memory_get', { entityId: 'formed-1', id: oslo.id });
    expect(missing.isError).toBe(true);
  });

  it('serves the same tools over another transport through AgentMemoryMcpServerFactory', async () => {
    await app.get(LongtermMemoryService).store.save({
      entityId: 'alice/factory-id',
      key: 'secret',
      value: 'alice only',
      seq: 1,
    });
    const server = app.get(AgentMemoryMcpServerFactory).create('alice');
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'in-process', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      expect(
        await callOk(client, 'memory_get', { entityId: 'factory-id', key: 'secret' }),
      ).toMatchObject({ value: 'alice only' });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('answers GET and DELETE with 405: the endpoint is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(endpoint, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
