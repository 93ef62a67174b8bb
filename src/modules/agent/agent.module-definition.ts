import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { AgentModuleOptions } from './agent.options.js';

export const {
  ConfigurableModuleClass: ConfigurableAgentModule,
  MODULE_OPTIONS_TOKEN: AGENT_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<AgentModuleOptions>({ moduleName: 'Agent' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createAgentOptions')
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
