import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigurableKernelModule } from './kernel.module-definition.js';
import { KernelService } from './kernel.service.js';

/**
 * The stateless kernel. `KernelModule.forRoot({ llm, filters, tools })` (or
 * `forRootAsync`) provides `KernelService`; `@KernelTool()` methods anywhere in the app are
 * discovered at bootstrap.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [KernelService],
  exports: [KernelService],
})
export class KernelModule extends ConfigurableKernelModule {}
