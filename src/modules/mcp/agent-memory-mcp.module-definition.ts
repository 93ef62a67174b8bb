import {
  ConfigurableModuleBuilder,
  type DynamicModule,
  type Provider,
  type Type,
} from '@nestjs/common';
import { ModuleRef, RouterModule } from '@nestjs/core';
import { SingleTenantResolver, type TenantResolver } from '../http/tenancy/tenant-resolver.js';
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
      useFactory: tenantResolverOf,
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

async function tenantResolverOf(
  options: AgentMemoryMcpModuleOptions,
  moduleRef: ModuleRef,
): Promise<TenantResolver> {
  const resolver = options.tenantResolver;
  if (resolver === undefined) return new SingleTenantResolver();
  if (typeof resolver === 'function') return moduleRef.create(resolver as Type<TenantResolver>);
  return resolver;
}
