import { afterEach, describe, expect, it } from '@jest/globals';
import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import {
  CHAT_MEMORY_STORE,
  getChatMemoryStoreToken,
} from '../../src/modules/chat-memory/chat-memory.constants.js';
import { InjectChatMemoryStore } from '../../src/modules/chat-memory/chat-memory.decorators.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { ChatMemoryModuleOptions } from '../../src/modules/chat-memory/chat-memory.options.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';

const opened: TestingModule[] = [];
async function boot(
  imports: Parameters<typeof Test.createTestingModule>[0]['imports'],
  providers: Parameters<typeof Test.createTestingModule>[0]['providers'] = [],
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({ imports, providers }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((moduleRef) => moduleRef.close()));
});

@Injectable()
class NeedsStores {
  constructor(
    @InjectChatMemoryStore() readonly main: ChatMemoryStore,
    @InjectChatMemoryStore('audit') readonly audit: ChatMemoryStore,
  ) {}
}

class OptionsFactory {
  createChatMemoryOptions(): ChatMemoryModuleOptions {
    return { backend: 'memory' };
  }
}

@Module({ providers: [OptionsFactory], exports: [OptionsFactory] })
class OptionsModule {}

@Injectable()
class Clock {
  now(): number {
    return 42;
  }
}

@Module({ providers: [Clock], exports: [Clock] })
class ClockModule {}

@Global()
@Module({ providers: [Clock], exports: [Clock] })
class GlobalClockModule {}

/** A custom store with a DI dependency and a shutdown hook, to check resolution and lifecycle. */
@Injectable()
class CustomStore extends InMemoryChatMemoryStore implements OnApplicationShutdown {
  static shutdowns = 0;
  constructor(readonly clock: Clock) {
    super();
  }
  onApplicationShutdown(): void {
    CustomStore.shutdowns += 1;
  }
}

describe('ChatMemoryModule', () => {
  it('forRoot provides the store under CHAT_MEMORY_STORE, and named stores under their own tokens', async () => {
    const moduleRef = await boot(
      [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        ChatMemoryModule.forRoot({ backend: 'memory', name: 'audit' }),
      ],
      [NeedsStores],
    );
    const { main, audit } = moduleRef.get(NeedsStores);
    expect(main).toBe(moduleRef.get(CHAT_MEMORY_STORE));
    expect(audit).toBe(moduleRef.get(getChatMemoryStoreToken('audit')));
    expect(main).not.toBe(audit);
    await main.add('c', [{ role: 'user', content: 'only in main' }]);
    expect(await audit.get('c')).toEqual([]);
  });

  it('forRootAsync accepts useFactory with inject, useClass and useExisting', async () => {
    const byFactory = await boot([
      ChatMemoryModule.forRootAsync({
        imports: [ClockModule],
        inject: [Clock],
        useFactory: (clock: Clock) => ({
          backend: 'sqlite',
          path: clock.now() === 42 ? ':memory:' : 'never',
        }),
      }),
    ]);
    await byFactory
      .get<ChatMemoryStore>(CHAT_MEMORY_STORE)
      .add('c', [{ role: 'user', content: 'x' }]);
    expect(await byFactory.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version('c')).toBe(1);

    const byClass = await boot([ChatMemoryModule.forRootAsync({ useClass: OptionsFactory })]);
    expect(byClass.get(CHAT_MEMORY_STORE)).toBeInstanceOf(InMemoryChatMemoryStore);

    const byExisting = await boot([
      ChatMemoryModule.forRootAsync({
        imports: [OptionsModule],
        useExisting: OptionsFactory,
        name: 'existing',
      }),
    ]);
    expect(byExisting.get(getChatMemoryStoreToken('existing'))).toBeInstanceOf(
      InMemoryChatMemoryStore,
    );
  });

  it('resolves a custom store class through DI and calls its shutdown hook once', async () => {
    CustomStore.shutdowns = 0;
    const moduleRef = await Test.createTestingModule({
      imports: [
        GlobalClockModule,
        ChatMemoryModule.forRoot({ backend: 'custom', store: CustomStore }),
      ],
    }).compile();
    const store = moduleRef.get<CustomStore>(CHAT_MEMORY_STORE);
    expect(store).toBeInstanceOf(CustomStore);
    expect(store.clock.now()).toBe(42);
    await moduleRef.close();
    expect(CustomStore.shutdowns).toBe(1);
  });

  it('instantiates a custom store class given through forRootAsync and forwards its shutdown hook', async () => {
    CustomStore.shutdowns = 0;
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRootAsync({
          imports: [ClockModule],
          useFactory: () => ({ backend: 'custom', store: CustomStore }),
        }),
      ],
    })
      .overrideProvider(Clock)
      .useValue({ now: () => 7 })
      .compile();
    await moduleRef.init();
    const store = moduleRef.get<CustomStore>(CHAT_MEMORY_STORE);
    expect(store).toBeInstanceOf(CustomStore);
    expect(store.clock.now()).toBe(7);
    await moduleRef.close();
    expect(CustomStore.shutdowns).toBe(1);
  });

  it('uses a custom store instance as is', async () => {
    const instance = new InMemoryChatMemoryStore();
    const moduleRef = await boot([
      ChatMemoryModule.forRoot({ backend: 'custom', store: instance }),
    ]);
    expect(moduleRef.get(CHAT_MEMORY_STORE)).toBe(instance);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['an unknown backend', { backend: 'mongo' }, 'backend'],
    ['sqlite without a path', { backend: 'sqlite' }, 'path'],
    ['postgres without a url', { backend: 'postgres' }, 'url'],
    ['a mysql url on postgres', { backend: 'postgres', url: 'mysql://root@127.0.0.1/test' }, 'url'],
    ['a malformed url', { backend: 'redis', url: 'not a url' }, 'url'],
    [
      'a key prefix with braces',
      { backend: 'redis', url: 'redis://127.0.0.1', keyPrefix: 'a{b}' },
      'keyPrefix',
    ],
    ['a custom store that is not one', { backend: 'custom', store: { get() {} } }, 'store'],
    [
      'a non-boolean migrationsRun',
      { backend: 'sqlite', path: ':memory:', migrationsRun: 'yes' },
      'migrationsRun',
    ],
  ];
  for (const [label, options, option] of invalid) {
    it(`fails bootstrap on ${label}, naming the option`, async () => {
      const error = await rejectionOf(
        Test.createTestingModule({
          imports: [
            ChatMemoryModule.forRootAsync({ useFactory: () => options as ChatMemoryModuleOptions }),
          ],
        }).compile(),
      );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(option);
      expect((error as Error).message).toContain('ChatMemoryModule');
    });
  }

  it('shares one DataSource between two stores on the same database and closes it on shutdown', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL }),
        ChatMemoryModule.forRoot({
          backend: 'postgres',
          url: otherSpelling(TEST_POSTGRES_URL),
          name: 'other',
        }),
      ],
    }).compile();
    await moduleRef.init();
    opened.push(moduleRef); // closed again after the test, should an assertion fail first
    const registry = moduleRef.get(ConnectionRegistry);
    expect(await registry.checkHealth()).toHaveLength(1);
    // A third holder of the same database gets the very DataSource the two stores share.
    const lease = await registry.acquireSql(
      { dialect: 'postgres', url: TEST_POSTGRES_URL },
      { migrationsRun: false, schema: CHAT_MEMORY_SCHEMA },
    );
    const { dataSource } = lease.value;
    await lease.release();
    expect(dataSource.isInitialized).toBe(true);
    await moduleRef.close();
    expect(dataSource.isInitialized).toBe(false);
  });

  it('uses a DataSource the user owns without closing it, and rejects one of the wrong dialect', async () => {
    const dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
    }).initialize();
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [ChatMemoryModule.forRoot({ backend: 'sqlite', dataSource })],
      }).compile();
      await moduleRef.init();
      const store = moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
      await store.add('c', [{ role: 'user', content: 'x' }]);
      await moduleRef.close();
      expect(dataSource.isInitialized).toBe(true);
      const [row] = (await dataSource.query(
        'SELECT count(*) AS n FROM agent_chat_messages',
      )) as Array<{ n: number }>;
      expect(row?.n).toBe(1);

      const error = await rejectionOf(
        Test.createTestingModule({
          imports: [ChatMemoryModule.forRoot({ backend: 'postgres', dataSource })],
        }).compile(),
      );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    } finally {
      await dataSource.destroy();
    }
  });
});

/** The same database, spelled differently: `postgresql:` scheme, default port left out. */
function otherSpelling(url: string): string {
  const parsed = new URL(url);
  return `postgresql://${parsed.username}@${parsed.hostname.toUpperCase()}${parsed.port === '5432' ? '' : `:${parsed.port}`}${parsed.pathname}`;
}

describe('ChatMemoryModule with a DataSource of yours', () => {
  it('refuses one that is not initialized, naming dataSource', async () => {
    const { DataSource } = await import('typeorm');
    const { InvalidArgumentError } =
      await import('../../src/common/errors/invalid-argument.error.js');
    const dataSource = new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL });
    const error = await rejectionOf(
      Test.createTestingModule({
        imports: [ChatMemoryModule.forRoot({ backend: 'postgres', dataSource })],
      }).compile(),
    );
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('dataSource');
    expect((error as Error).message).toContain('initialize');
  });
});
