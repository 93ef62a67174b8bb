import type { DynamicModule, Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import type { AgentModuleOptions } from '../../src/modules/agent/agent.options.js';
import { AgentService } from '../../src/modules/agent/agent.service.js';

/** An agent in a Nest testing module, with extra modules (a ChatMemoryModule) and providers (tools). */
export interface AgentHarness {
  agent: AgentService;
  moduleRef: TestingModule;
  close(): Promise<void>;
}

export async function bootAgent(
  options: AgentModuleOptions,
  imports: DynamicModule[] = [],
  providers: Provider[] = [],
): Promise<AgentHarness> {
  const moduleRef = await Test.createTestingModule({
    imports: [...imports, AgentModule.forRoot(options)],
    providers,
  }).compile();
  await moduleRef.init();
  return { agent: moduleRef.get(AgentService), moduleRef, close: () => moduleRef.close() };
}
