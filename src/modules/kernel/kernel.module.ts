import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigurableKernelModule } from './kernel.module-definition.js';
import { KernelService } from './kernel.service.js';

/**
 * The stateless kernel. `KernelModule.forRoot({ llm, filters, tools })` (or
 * `forRootAsync`) provides `KernelService`; `@KernelTool()` methods anywhere in the app are
 * discovered at bootstrap.
 *
 * @property forRoot Provides `KernelService` for these options; the extra `isGlobal` (default
 *   `false`) goes beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createKernelOptions()`).
 */
@Module({
  imports: [DiscoveryModule],
  providers: [KernelService],
  exports: [KernelService],
})
export class KernelModule extends ConfigurableKernelModule {}
