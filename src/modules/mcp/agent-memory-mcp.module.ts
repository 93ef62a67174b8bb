import { type DynamicModule, Module } from '@nestjs/common';
import { AgentMemoryMcpController } from './agent-memory-mcp.controller.js';
import {
  type AgentMemoryMcpModuleExtras,
  ConfigurableAgentMemoryMcpModule,
} from './agent-memory-mcp.module-definition.js';
import type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';
import { AgentMemoryMcpServerFactory } from './agent-memory-mcp-server.factory.js';
import { McpMemoryServices } from './mcp-memory.services.js';

/**
 * The app's memory as Model Context Protocol tools over Streamable HTTP, opt-in:
 * `AgentMemoryMcpModule.forRoot({ path?, tenantResolver? })` serves `POST /mcp` with the tools
 * `memory_save`, `memory_get`, `memory_delete`, `memory_list`, `memory_recall`,
 * `formed_memory_list`, `formed_memory_search`, `formed_memory_get`, `memory_correct`, `memory_forget`,
 * `working_memory_list` and `working_memory_get`, on whatever `LongtermMemoryModule` and
 * `WorkingMemoryModule` the app configured. It brings no auth of its own (the app's guards apply)
 * and scopes every id to the request's tenant exactly as `AgentMemoryHttpModule` does. Needs the
 * optional peers `@modelcontextprotocol/sdk` and `zod`.
 *
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createAgentMemoryMcpOptions()`); the extra `path`
 *   goes beside them.
 */
@Module({
  controllers: [AgentMemoryMcpController],
  providers: [McpMemoryServices, AgentMemoryMcpServerFactory],
  exports: [AgentMemoryMcpServerFactory],
})
export class AgentMemoryMcpModule extends ConfigurableAgentMemoryMcpModule {
  /** The endpoint with the defaults (one tenant, at `/mcp`) when called bare. */
  static override forRoot(
    options: AgentMemoryMcpModuleOptions & AgentMemoryMcpModuleExtras = {},
  ): DynamicModule {
    return super.forRoot(options);
  }
}
