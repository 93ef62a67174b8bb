import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { injectDataSourceToken } from '../connections/sql/data-source-option.js';
import type { AgentModuleOptions } from './agent.options.js';

export const {
  ConfigurableModuleClass: ConfigurableAgentModule,
  MODULE_OPTIONS_TOKEN: AGENT_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<AgentModuleOptions>({ moduleName: 'Agent' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createAgentOptions')
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: false }, completeDefinition)
  .build();

/** Global as asked; `runs: { backend, dataSource: getDataSourceToken(name) }` in forRoot injected. */
function completeDefinition(
  definition: DynamicModule,
  extras: { isGlobal?: boolean },
): DynamicModule {
  return injectDataSourceToken({ ...definition, global: extras.isGlobal }, AGENT_MODULE_OPTIONS, {
    get: (options) => (options.runs as { dataSource?: unknown } | undefined)?.dataSource,
    set: (options, dataSource) => ({
      ...options,
      runs: { ...(options.runs as object), dataSource },
    }),
  });
}
