import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions, EntitySchema } from 'typeorm';
import {
  AgentModule,
  AgentService,
  CHAT_MEMORY_STORE,
  type ChatMemoryStore,
  ChatMemoryModule,
  LongtermMemoryModule,
  LongtermMemoryService,
  type SqlDialect,
  agentMemoryEntitySchemas,
  agentMemoryMigrations,
} from 'nest-agent-memory';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';
import { tempDir } from '../support/test-databases.js';

/**
 * An app that lets TypeORM own its schema: the package's entities and migrations in the app's own
 * connection and migration set (recorded in TypeORM's default `migrations` table), run by
 * `TypeOrmModule` at start.
 */
function appConnection(dialect: SqlDialect, where: string): DataSourceOptions {
  const own = {
    entities: agentMemoryEntitySchemas(dialect).map((options) => new EntitySchema(options)),
    migrations: agentMemoryMigrations(dialect),
    migrationsRun: true,
    synchronize: false,
    logging: false,
  } as const;
  switch (dialect) {
    case 'postgres':
      return { ...own, type: 'postgres', url: where };
    case 'mysql':
      return { ...own, type: 'mysql', url: where, charset: 'utf8mb4', supportBigNumbers: true };
    case 'sqlite':
      return { ...own, type: 'better-sqlite3', database: where };
  }
}

describe.each<SqlDialect>(['postgres', 'mysql', 'sqlite'])(
  'the modules on the app’s TypeOrmModule connection (%s)',
  (dialect) => {
    let database: FreshDatabase | undefined;
    let moduleRef: TestingModule;
    let dataSource: DataSource;

    beforeAll(async () => {
      database = dialect === 'sqlite' ? undefined : await createFreshDatabase(dialect);
      const where = database?.url ?? join(tempDir(), 'app.sqlite');
      moduleRef = await Test.createTestingModule({
        imports: [
          TypeOrmModule.forRoot(appConnection(dialect, where)),
          // A second connection to the same database starts once the first has migrated it
          // (TypeORM takes no lock: two connections migrating one database at once race).
          TypeOrmModule.forRootAsync({
            name: 'analytics',
            inject: [getDataSourceToken()],
            useFactory: () => ({ ...appConnection(dialect, where), name: 'analytics' }),
          }),
          // TypeORM ran the package's migrations: the modules only check they are there.
          ChatMemoryModule.forRoot({
            backend: dialect,
            dataSource: getDataSourceToken(),
            migrationsRun: false,
          }),
          LongtermMemoryModule.forRoot({
            dataSource: getDataSourceToken('analytics'),
            migrationsRun: false,
            sweep: false,
          }),
          // This one runs migrations: those TypeORM recorded count as run, nothing is re-applied.
          AgentModule.forRoot({
            llm: { provider: 'echo' },
            runs: { backend: dialect, dataSource: getDataSourceToken(), migrationsRun: true },
          }),
        ],
      }).compile();
      await moduleRef.init();
      dataSource = moduleRef.get<DataSource>(getDataSourceToken());
    }, 60_000);

    afterAll(async () => {
      await moduleRef?.close();
      await database?.drop();
    });

    it('shares the app’s connections: a turn with a long-term write, and no pool of its own', async () => {
      const agent = moduleRef.get(AgentService);
      const result = await agent.run({ conversationId: 'c1', entityId: 'u1', message: 'hello' });
      expect(result.version).toBe(2);
      await moduleRef.get(LongtermMemoryService).store.save({
        entityId: 'u1',
        key: 'k',
        value: 'v',
        seq: 1,
      });

      const [messages] = (await dataSource.query(
        'SELECT count(*) AS n FROM agent_chat_messages',
      )) as Array<{ n: number | string }>;
      expect(Number(messages!.n)).toBe(2);
      const analytics = moduleRef.get<DataSource>(getDataSourceToken('analytics'));
      expect(await moduleRef.get(LongtermMemoryService).store.load('u1', 'k')).toMatchObject({
        value: 'v',
      });
      expect(analytics.isInitialized).toBe(true);
      // No pool of the package's own: health covers exactly the two connections it was handed.
      const health = await moduleRef.get(ConnectionRegistry).checkHealth();
      expect(health.map((entry) => [entry.name, entry.healthy])).toEqual([
        [`${dialect}-1`, true],
        [`${dialect}-2`, true],
      ]);
      expect((await moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).get('c1'))[0]!.content).toBe(
        'hello',
      );
    });

    it('leaves TypeORM nothing to generate: entities and migrations agree', async () => {
      // What `typeorm migration:generate` computes: the schema changes the entities call for.
      const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
      expect(upQueries.map((query) => query.query)).toEqual([]);
      const recorded = (await dataSource.query('SELECT name FROM migrations')) as Array<{
        name: string;
      }>;
      expect(recorded.map((row) => row.name).sort()).toEqual(
        agentMemoryMigrations(dialect)
          .map((migration) => migration.name)
          .sort(),
      );
      const [ours] = (await dataSource.query(
        'SELECT count(*) AS n FROM agent_memory_migrations',
      )) as Array<{ n: number | string }>;
      expect(Number(ours!.n)).toBe(0);
    });
  },
);

describe('a DataSource token where it cannot be resolved', () => {
  it('is refused in forRootAsync, saying to inject it', async () => {
    const error = await rejectionOf(
      Test.createTestingModule({
        imports: [
          ChatMemoryModule.forRootAsync({
            useFactory: () => ({ backend: 'postgres', dataSource: getDataSourceToken() }),
          }),
        ],
      }).compile(),
    );
    expect((error as Error).message).toMatch(/dataSource.*inject/);
  });

  it('refuses a MariaDB DataSource without utf8mb4', async () => {
    const database = await createFreshDatabase('mysql');
    const dataSource = await new DataSource({ type: 'mysql', url: database.url }).initialize();
    try {
      const error = await rejectionOf(
        Test.createTestingModule({
          imports: [ChatMemoryModule.forRoot({ backend: 'mysql', dataSource })],
        }).compile(),
      );
      expect((error as Error).message).toContain('utf8mb4');
    } finally {
      await dataSource.destroy();
      await database.drop();
    }
  });
});

describe('shutdown with the memory modules imported before TypeOrmModule', () => {
  it('stops the sweeps and the queue before TypeORM closes the connection', async () => {
    const problems: string[] = [];
    const record = (message: unknown) => void problems.push(String(message));
    const logger = {
      log() {},
      debug() {},
      verbose() {},
      warn: record,
      error: record,
      fatal: record,
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        LongtermMemoryModule.forRoot({
          dataSource: getDataSourceToken(),
          migrationsRun: false,
          sweep: { intervalMs: 5 },
        }),
        AgentModule.forRoot({
          llm: { provider: 'echo' },
          runs: {
            backend: 'sqlite',
            dataSource: getDataSourceToken(),
            migrationsRun: false,
            sweep: { intervalMs: 5 },
          },
        }),
        ChatMemoryModule.forRoot({
          backend: 'sqlite',
          dataSource: getDataSourceToken(),
          migrationsRun: false,
        }),
        TypeOrmModule.forRoot(appConnection('sqlite', join(tempDir(), 'order.sqlite'))),
      ],
    })
      .setLogger(logger)
      .compile();
    await moduleRef.init();
    const agent = moduleRef.get(AgentService);
    const { runId } = await agent.submit({ conversationId: 'order', entityId: 'u', message: 'hi' });
    for (let i = 0; i < 100 && (await agent.getRun(runId))?.status !== 'completed'; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await agent.getRun(runId))?.status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 30));
    await moduleRef.close();
    expect(moduleRef.get<DataSource>(getDataSourceToken()).isInitialized).toBe(false);
    expect(problems).toEqual([]);
  });
});
