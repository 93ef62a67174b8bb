import { ConfigurableModuleBuilder, type DynamicModule, type Provider } from '@nestjs/common';
import { ModuleRef, RouterModule } from '@nestjs/core';
import { resolveTenantResolver } from '../http/tenancy/tenant-resolver-option.js';
import type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';
import { validateAgentMemoryMcpOptions } from './agent-memory-mcp-options.validation.js';
import {
  AGENT_MEMORY_MCP_OPTIONS,
  DEFAULT_MCP_PATH,
  MCP_TENANT_RESOLVER,
} from './mcp.constants.js';

/** What `AgentMemoryMcpModule` fixes when the module is built (not part of async options). */
export interface AgentMemoryMcpModuleExtras {
  /** The route of the endpoint (`'mcp'` → `POST /mcp`; `'api/mcp'` → `POST /api/mcp`); default `mcp`. */
  path?: string;
}

export const {
  ConfigurableModuleClass: ConfigurableAgentMemoryMcpModule,
  MODULE_OPTIONS_TOKEN: AGENT_MEMORY_MCP_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<AgentMemoryMcpModuleOptions>({
  moduleName: 'AgentMemoryMcp',
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createAgentMemoryMcpOptions')
  .setExtras<AgentMemoryMcpModuleExtras>({ path: DEFAULT_MCP_PATH }, addProviders)
  .build();

function addProviders(
  definition: DynamicModule,
  extras: AgentMemoryMcpModuleExtras,
): DynamicModule {
  if (typeof extras.path !== 'string' || extras.path.replace(/\//g, '') === '')
    throw new Error('AgentMemoryMcpModule: path must be a non-empty string');
  const providers: Provider[] = [
    {
      provide: AGENT_MEMORY_MCP_OPTIONS,
      useFactory: validateAgentMemoryMcpOptions,
      inject: [AGENT_MEMORY_MCP_MODULE_OPTIONS],
    },
    {
      provide: MCP_TENANT_RESOLVER,
      useFactory: (options: AgentMemoryMcpModuleOptions, moduleRef: ModuleRef) =>
        resolveTenantResolver(options.tenantResolver, moduleRef),
      inject: [AGENT_MEMORY_MCP_OPTIONS, ModuleRef],
    },
  ];
  return {
    ...definition,
    imports: [
      ...(definition.imports ?? []),
      RouterModule.register([{ path: extras.path, module: definition.module }]),
    ],
    providers: [...(definition.providers ?? []), ...providers],
  };
}
