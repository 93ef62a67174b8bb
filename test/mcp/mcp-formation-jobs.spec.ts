import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AgentModule, ChatMemoryModule, LongtermMemoryModule } from 'nest-agent-memory';
import {
  AgentMemoryHttpModule,
  type TenantRequest,
  type TenantResolver,
} from 'nest-agent-memory/http';
import { AgentMemoryMcpModule } from '../../src/modules/mcp/index.js';
import { callOk, callTool, connectMcp, textOf } from './mcp-client.js';
import { listenWith } from './mcp-test-app.js';
import { SwitchableModel } from '../support/switchable-formation-model.js';

/** The tenant named by the `x-tenant` header (none: the default tenant). */
class HeaderTenantResolver implements TenantResolver {
  resolve(request: TenantRequest): string | undefined {
    const tenant = request.headers['x-tenant'];
    return typeof tenant === 'string' ? tenant : undefined;
  }
}

/** Formation jobs over MCP: the same answers as the REST routes, per tenant. */
describe('formation jobs as MCP tools (formation_jobs, formation_failures, formation_rerun)', () => {
  const model = new SwitchableModel();
  const tenant = { 'x-tenant': 'acme' };
  let app: INestApplication;
  let url: string;
  let acme: Client;
  let other: Client;
  const runIds: string[] = [];
  let rerunId: string;
  const rest = (path: string) => request(url).get(path).set(tenant).expect(200);

  beforeAll(async () => {
    ({ app, url } = await listenWith([
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
      AgentModule.forRoot({ llm: { provider: 'echo' }, formation: { model, attempts: 1 } }),
      AgentMemoryHttpModule.forRoot({ tenantResolver: HeaderTenantResolver }),
      AgentMemoryMcpModule.forRoot({ tenantResolver: HeaderTenantResolver }),
    ]));
    acme = await connectMcp(`${url}/mcp`, tenant);
    other = await connectMcp(`${url}/mcp`, { 'x-tenant': 'other' });
    for (const message of ['I like tea.', 'I live in Oslo.']) {
      const turn = await request(url)
        .post('/conversations/fj1/turns')
        .set(tenant)
        .send({ message, entityId: 'u1' })
        .expect(201);
      runIds.push(turn.body.runId as string);
    }
    // The re-run test's own entity: tests run in any order, and a re-run changes what is listed.
    const turn = await request(url)
      .post('/conversations/fj2/turns')
      .set(tenant)
      .send({ message: 'I like tea.', entityId: 'u2' })
      .expect(201);
    rerunId = turn.body.runId as string;
    // Each turn's job fails in the background (one attempt each).
    const failed = async (entity: string) =>
      ((await rest(`/entities/${entity}/formation-failures`)).body.failures as unknown[]).length;
    for (let i = 0; i < 200 && ((await failed('u1')) < 2 || (await failed('u2')) < 1); i += 1)
      await sleep(50);
  });
  afterAll(async () => {
    await acme?.close();
    await other?.close();
    await app?.close();
  });

  it('lists failed jobs as GET …/formation-failures does, a page at a time', async () => {
    const overRest = (await rest('/entities/u1/formation-failures')).body;
    expect(overRest.failures).toHaveLength(2);
    expect(await callOk(acme, 'formation_failures', { entityId: 'u1' })).toEqual(overRest);
    const first = await callOk(acme, 'formation_failures', { entityId: 'u1', limit: 1 });
    const second = await callOk(acme, 'formation_failures', {
      entityId: 'u1',
      limit: 1,
      cursor: first.cursor,
    });
    expect([...(first.failures as unknown[]), ...(second.failures as unknown[])]).toEqual(
      overRest.failures,
    );
    expect(
      textOf(await callTool(acme, 'formation_failures', { entityId: 'u1', cursor: 'nope' })),
    ).toBe('Bad Request: cursor is not one this tool gave');
    // Another tenant's entity of the same id is another entity.
    expect(await callOk(other, 'formation_failures', { entityId: 'u1' })).toEqual({
      failures: [],
    });
  });

  it('runs a failed job again, then lists it among the written jobs as GET …/formation-jobs does', async () => {
    const tea = rerunId;
    expect(await callOk(acme, 'formation_rerun', { entityId: 'u2', runId: tea })).toEqual({
      status: 'failed',
      error: expect.stringContaining('not JSON'),
    });
    // Not the other tenant's to run.
    expect(textOf(await callTool(other, 'formation_rerun', { entityId: 'u2', runId: tea }))).toBe(
      `Not Found: No failed formation job of run "${tea}" for u2`,
    );
    model.failing = false;
    expect(await callOk(acme, 'formation_rerun', { entityId: 'u2', runId: tea })).toEqual({
      status: 'written',
      operations: [{ candidate: 0, op: 'ADD', memoryId: expect.any(String) }],
    });
    expect(await callOk(acme, 'formation_failures', { entityId: 'u2' })).toEqual({ failures: [] });

    const jobs = await callOk(acme, 'formation_jobs', { entityId: 'u2', conversationId: 'fj2' });
    expect(jobs).toEqual((await rest('/entities/u2/formation-jobs?conversationId=fj2')).body);
    expect(jobs.jobs).toEqual([
      expect.objectContaining({
        runId: tea,
        conversationId: 'fj2',
        model: 'switchable',
        operations: [expect.objectContaining({ op: 'ADD' })],
      }),
    ]);
    expect(
      await callOk(acme, 'formation_jobs', { entityId: 'u2', conversationId: 'elsewhere' }),
    ).toEqual({ jobs: [] });
    expect(await callOk(other, 'formation_jobs', { entityId: 'u2' })).toEqual({ jobs: [] });
    expect(
      (await callTool(acme, 'formation_rerun', { entityId: 'u2', runId: 'a b' })).isError,
    ).toBe(true);
  });
});
