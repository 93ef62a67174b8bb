import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { KernelModuleExtras, KernelModuleOptions } from './kernel.options.js';

export const {
  ConfigurableModuleClass: ConfigurableKernelModule,
  MODULE_OPTIONS_TOKEN: KERNEL_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<KernelModuleOptions>({ moduleName: 'Kernel' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createKernelOptions')
  .setExtras<KernelModuleExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
