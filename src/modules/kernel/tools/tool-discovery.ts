import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Ajv } from 'ajv';
import type { KernelToolOptions } from '../interfaces/kernel-tool.interface.js';
import { KERNEL_TOOL_METADATA } from './kernel-tool.decorator.js';
import type { RegisteredTool } from './registered-tool.js';
import { toolFromMethod } from './tool-factory.js';

/** The Nest services that find `@KernelTool()` methods. */
export interface ToolDiscoveryServices {
  discovery: DiscoveryService;
  scanner: MetadataScanner;
  reflector: Reflector;
}

/**
 * Finds every `@KernelTool()` method on the application's singleton providers (request-scoped
 * providers have no instance to call at bootstrap and are skipped). A provider reached through
 * several modules or aliases counts once.
 */
export function discoverKernelTools(
  { discovery, scanner, reflector }: ToolDiscoveryServices,
  ajv: Ajv,
): RegisteredTool[] {
  const seen = new Set<object>();
  const tools: RegisteredTool[] = [];
  for (const wrapper of discovery.getProviders()) {
    const instance = wrapper.instance as object | undefined;
    if (
      !instance ||
      typeof instance !== 'object' ||
      seen.has(instance) ||
      !wrapper.isDependencyTreeStatic()
    )
      continue;
    seen.add(instance);
    for (const methodName of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const method = (instance as Record<string, unknown>)[methodName];
      if (typeof method !== 'function') continue;
      const options = reflector.get<KernelToolOptions | undefined>(
        KERNEL_TOOL_METADATA,
        method as () => unknown,
      );
      if (options) tools.push(toolFromMethod(ajv, options, instance, methodName));
    }
  }
  return tools;
}
