import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConnectionsModule } from '../connections/connections.module.js';
import { AgentDefaultsModule } from './agent-defaults.module.js';
import { ConfigurableAgentModule } from './agent.module-definition.js';
import { AgentService } from './agent.service.js';
import { AGENT_PROVIDERS } from './agent.providers.js';

/**
 * The agent. `AgentModule.forRoot({ llm | kernel, systemPrompt, memory, tools,
 * conflictPolicy, runs, queue, events })` (or `forRootAsync`) provides `AgentService`.
 *
 * @property forRoot Provides `AgentService` for these options; the extra `isGlobal` (default
 *   `false`) goes beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createAgentOptions()`).
 */
@Module({
  imports: [DiscoveryModule, ConnectionsModule, AgentDefaultsModule],
  providers: [...AGENT_PROVIDERS, AgentService],
  exports: [AgentService],
})
export class AgentModule extends ConfigurableAgentModule {}
