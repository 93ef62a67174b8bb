import type { Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import type { KernelModuleOptions } from '../../src/modules/kernel/kernel.options.js';
import { KernelService } from '../../src/modules/kernel/kernel.service.js';

/** A kernel in a Nest testing module, with extra providers (e.g. classes holding `@KernelTool()`s). */
export interface KernelHarness {
  kernel: KernelService;
  moduleRef: TestingModule;
  close(): Promise<void>;
}

export async function bootKernel(
  options: KernelModuleOptions,
  providers: Provider[] = [],
): Promise<KernelHarness> {
  const moduleRef = await Test.createTestingModule({
    imports: [KernelModule.forRoot(options)],
    providers,
  }).compile();
  await moduleRef.init();
  return { kernel: moduleRef.get(KernelService), moduleRef, close: () => moduleRef.close() };
}
