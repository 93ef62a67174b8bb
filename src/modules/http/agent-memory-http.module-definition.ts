import { ConfigurableModuleBuilder, type DynamicModule, type Provider } from '@nestjs/common';
import { ModuleRef, RouterModule } from '@nestjs/core';
import { AGENT_MEMORY_HTTP_OPTIONS, TENANT_RESOLVER } from './http.constants.js';
import type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';
import { validateAgentMemoryHttpOptions } from './agent-memory-http-options.validation.js';
import { AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS } from './errors/agent-memory-exception.filter.js';
import { resolveTenantResolver } from './tenancy/tenant-resolver-option.js';
import { AgentMemoryTools } from './tools/agent-memory.tools.js';

/** What `AgentMemoryHttpModule` fixes when the module is built (not part of async options). */
export interface AgentMemoryHttpModuleExtras {
  /** A prefix for every route (`'api'` → `/api/conversations/…`); default none. */
  path?: string;
  /**
   * Register the built-in tools `memory_save`, `memory_get`, `memory_list`, `memory_recall`,
   * `memory_correct`, `memory_forget`, `scratchpad_set` and `scratchpad_get` with the app's kernels,
   * the agent's included (default `true`).
   */
  tools?: boolean;
}

export const {
  ConfigurableModuleClass: ConfigurableAgentMemoryHttpModule,
  MODULE_OPTIONS_TOKEN: AGENT_MEMORY_HTTP_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<AgentMemoryHttpModuleOptions>({
  moduleName: 'AgentMemoryHttp',
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createAgentMemoryHttpOptions')
  .setExtras<AgentMemoryHttpModuleExtras>({ tools: true, path: undefined }, addProviders)
  .build();

function addProviders(
  definition: DynamicModule,
  extras: AgentMemoryHttpModuleExtras,
): DynamicModule {
  if (extras.path !== undefined && (typeof extras.path !== 'string' || extras.path === ''))
    throw new Error('AgentMemoryHttpModule: path must be a non-empty string');
  if (typeof extras.tools !== 'boolean')
    throw new Error('AgentMemoryHttpModule: tools must be true or false');
  const providers: Provider[] = [
    {
      provide: AGENT_MEMORY_HTTP_OPTIONS,
      useFactory: validateAgentMemoryHttpOptions,
      inject: [AGENT_MEMORY_HTTP_MODULE_OPTIONS],
    },
    {
      provide: TENANT_RESOLVER,
      useFactory: (options: AgentMemoryHttpModuleOptions, moduleRef: ModuleRef) =>
        resolveTenantResolver(options.tenantResolver, moduleRef),
      inject: [AGENT_MEMORY_HTTP_OPTIONS, ModuleRef],
    },
    {
      provide: AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS,
      useFactory: (options: AgentMemoryHttpModuleOptions) => ({
        longtermDisabledHint: options.longtermDisabledHint,
      }),
      inject: [AGENT_MEMORY_HTTP_OPTIONS],
    },
    ...(extras.tools === false ? [] : [AgentMemoryTools]),
  ];
  return {
    ...definition,
    imports: [
      ...(definition.imports ?? []),
      ...(extras.path
        ? [RouterModule.register([{ path: extras.path, module: definition.module }])]
        : []),
    ],
    providers: [...(definition.providers ?? []), ...providers],
  };
}
