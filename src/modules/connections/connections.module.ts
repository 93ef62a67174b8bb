import { Global, Module } from '@nestjs/common';
import { AgentMemoryHealthService } from './agent-memory-health.service.js';
import { ConnectionRegistry } from './connection-registry.js';

/**
 * Global core module holding the application's one {@link ConnectionRegistry} (internal) and the
 * public {@link AgentMemoryHealthService}. Every memory module imports it, and Nest instantiates it
 * once per application.
 */
@Global()
@Module({
  providers: [ConnectionRegistry, AgentMemoryHealthService],
  exports: [ConnectionRegistry, AgentMemoryHealthService],
})
export class ConnectionsModule {}
