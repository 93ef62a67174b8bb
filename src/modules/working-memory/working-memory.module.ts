import { Module } from '@nestjs/common';
import { ConfigurableWorkingMemoryModule } from './working-memory.module-definition.js';

/**
 * Per-conversation working memory: `WorkingMemoryModule.forRoot({ backend: 'memory' |
 * 'redis', capBytes, compactor, ttlMs, onExpire })` provides `WorkingMemoryService`.
 */
@Module({})
export class WorkingMemoryModule extends ConfigurableWorkingMemoryModule {}
