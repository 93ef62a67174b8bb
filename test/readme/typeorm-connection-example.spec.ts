import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { TypeOrmConnectionModule } from '../../examples/typeorm-connection.module.js';
import { AgentService, LongtermMemoryService } from '../../src/index.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';

/** A provider of the importing module: it gets the agent and long-term memory by injection. */
@Injectable()
class UsesTheMemory {
  constructor(
    readonly agent: AgentService,
    readonly longterm: LongtermMemoryService,
  ) {}
}

describe('README example: TypeOrmConnectionModule (the app’s TypeORM connection)', () => {
  let database: FreshDatabase;
  let moduleRef: TestingModule;
  beforeAll(async () => {
    database = await createFreshDatabase('postgres');
    process.env.DATABASE_URL = database.url;
    // Imported as a feature module by the app's own module, whose provider injects its services.
    moduleRef = await Test.createTestingModule({
      imports: [TypeOrmConnectionModule],
      providers: [UsesTheMemory],
    }).compile();
    await moduleRef.init();
  }, 60_000);
  afterAll(async () => {
    await moduleRef?.close();
    delete process.env.DATABASE_URL;
    await database?.drop();
  });

  it('runs a turn on the app’s connection, and TypeORM has nothing to generate', async () => {
    const result = await moduleRef.get(UsesTheMemory).agent.run({
      conversationId: 'typeorm-example',
      entityId: 'u1',
      message: 'hello',
    });
    expect(result.version).toBe(2);
    expect(moduleRef.get(UsesTheMemory).longterm.enabled).toBe(true);
    const health = await moduleRef.get(ConnectionRegistry).checkHealth();
    expect(health.map((entry) => [entry.name, entry.healthy])).toEqual([['postgres', true]]);
    const dataSource = moduleRef.get<DataSource>(getDataSourceToken());
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    expect(upQueries).toEqual([]);
  });
});
