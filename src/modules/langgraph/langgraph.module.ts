import { Module } from '@nestjs/common';
import { ConfigurableLangGraphModule } from './langgraph.module-definition.js';

export type { LangGraphModuleExtras, LangGraphModuleOptions } from './langgraph.options.js';

/**
 * LangGraph on the package's storage: `AgentMemoryCheckpointSaver` (a checkpointer on memory,
 * SQLite, PostgreSQL, MySQL/MariaDB or Redis, migrated and pooled like every other module) and
 * `AgentMemoryStore` (LangGraph's long-term store over `LongtermMemoryModule`), both injectable by
 * class.
 *
 * @property forRoot Provides both for these options; the extra `isGlobal` (default `true`) goes
 *   beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createLangGraphOptions()`).
 */
@Module({})
export class LangGraphModule extends ConfigurableLangGraphModule {}
