import {
  ConfigurableModuleBuilder,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Lease } from '../../common/lease.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { withFeatureProviders } from '../connections/feature-module.js';
import { injectDataSourceToken } from '../connections/sql/data-source-option.js';
import { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { AgentMemoryCheckpointSaver } from './agent-memory-checkpoint-saver.js';
import { AgentMemoryStore } from './agent-memory-store.js';
import { validateLangGraphOptions } from './langgraph-options.validation.js';
import type { LangGraphModuleExtras, LangGraphModuleOptions } from './langgraph.options.js';
import { openCheckpointSaverIn } from './open-checkpoint-saver.js';

const CHECKPOINT_LEASE = Symbol('LANGGRAPH_CHECKPOINT_LEASE');

/** Lets go of the checkpointer's connection when the app shuts down. */
class CheckpointLeaseRelease implements OnApplicationShutdown {
  constructor(private readonly lease: Lease<AgentMemoryCheckpointSaver>) {}

  async onApplicationShutdown(): Promise<void> {
    await this.lease.release();
  }
}

/** The configurable base of `LangGraphModule` (forRoot, forRootAsync) and its options token. */
export const { ConfigurableModuleClass: ConfigurableLangGraphModule, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<LangGraphModuleOptions>({ moduleName: 'LangGraph' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createLangGraphOptions')
    .setExtras<LangGraphModuleExtras>({ isGlobal: true }, completeDefinition)
    .build();

const LANGGRAPH_OPTIONS = Symbol('LANGGRAPH_OPTIONS');

function completeDefinition(
  definition: DynamicModule,
  extras: LangGraphModuleExtras,
): DynamicModule {
  // `dataSource: getDataSourceToken(name)` in forRoot: the app's TypeORM connection, injected.
  const resolved = injectDataSourceToken(definition, MODULE_OPTIONS_TOKEN, {
    get: (options) => (options as LangGraphModuleOptions).dataSource,
    set: (options, dataSource) => ({ ...options, dataSource }),
  });
  return withFeatureProviders(resolved, extras.isGlobal, {
    providers: [
      {
        provide: LANGGRAPH_OPTIONS,
        useFactory: validateLangGraphOptions,
        inject: [MODULE_OPTIONS_TOKEN],
      },
      {
        provide: CHECKPOINT_LEASE,
        useFactory: (
          options: LangGraphModuleOptions,
          registry: ConnectionRegistry,
          longterm: LongtermMemoryService | undefined,
        ) => {
          // Checked before the connection opens: a failed start leaves no pool behind.
          assertStoreBacked(options, longterm);
          return openCheckpointSaverIn(options, registry);
        },
        inject: [
          LANGGRAPH_OPTIONS,
          ConnectionRegistry,
          { token: LongtermMemoryService, optional: true },
        ],
      },
      {
        provide: CheckpointLeaseRelease,
        useFactory: (lease: Lease<AgentMemoryCheckpointSaver>) => new CheckpointLeaseRelease(lease),
        inject: [CHECKPOINT_LEASE],
      },
      {
        provide: AgentMemoryCheckpointSaver,
        useFactory: (lease: Lease<AgentMemoryCheckpointSaver>) => lease.value,
        inject: [CHECKPOINT_LEASE],
      },
      {
        provide: AgentMemoryStore,
        useFactory: openStore,
        inject: [LANGGRAPH_OPTIONS, { token: LongtermMemoryService, optional: true }],
      },
    ],
    exports: [AgentMemoryCheckpointSaver, AgentMemoryStore],
  });
}

function openStore(
  options: LangGraphModuleOptions,
  longterm: LongtermMemoryService | undefined,
): AgentMemoryStore | null {
  if (options.store === false) return null;
  assertStoreBacked(options, longterm);
  return new AgentMemoryStore(longterm!, options.store);
}

function assertStoreBacked(
  options: LangGraphModuleOptions,
  longterm: LongtermMemoryService | undefined,
): void {
  if (options.store !== false && !longterm?.enabled)
    throw new Error(
      'LangGraphModule: the LangGraph store keeps its items in long-term memory; add LongtermMemoryModule.forRoot({ uri }) to the app, or pass store: false for the checkpointer alone',
    );
}
