import { Module } from '@nestjs/common';
import { ConfigurableWorkingMemoryModule } from './working-memory.module-definition.js';

/**
 * Per-conversation working memory: `WorkingMemoryModule.forRoot({ backend: 'memory' |
 * 'redis', capBytes, compactor, ttlMs, onExpire })` provides `WorkingMemoryService`.
 *
 * @property forRoot Provides `WorkingMemoryService` for these options; the extra `isGlobal`
 *   (default `true`) goes beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createWorkingMemoryOptions()`).
 */
@Module({})
export class WorkingMemoryModule extends ConfigurableWorkingMemoryModule {}
