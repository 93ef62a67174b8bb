import type { Type } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { KernelFilter } from './interfaces/kernel-filter.interface.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import { KernelEngine } from './kernel-engine.js';
import type { KernelModuleOptions } from './kernel.options.js';
import { createLlmAdapter, isLlmAdapter } from '../llm/create-llm-adapter.js';
import type { LlmOptions } from '../llm/llm-options.js';
import { discoverKernelTools } from './tools/tool-discovery.js';
import { createSchemaCompiler } from './tools/tool-factory.js';
import { ToolRegistry } from './tools/tool-registry.js';

/** The Nest services a kernel is built with. */
export interface KernelBuildContext {
  moduleRef: ModuleRef;
  discovery: DiscoveryService;
  scanner: MetadataScanner;
  reflector: Reflector;
  /** The module named in errors (`KernelModule`, `AgentModule`). */
  moduleName: string;
}

/**
 * Builds a kernel from module options at bootstrap: the adapter, the filters (instances, or classes
 * from the container else created with DI), the discovered and selected tools, the chains.
 */
export async function createKernelEngine(
  options: KernelModuleOptions,
  context: KernelBuildContext,
): Promise<KernelEngine> {
  const { maxToolIterations } = options;
  if (
    maxToolIterations !== undefined &&
    !(Number.isInteger(maxToolIterations) && maxToolIterations >= 0)
  ) {
    throw new InvalidModuleOptionsError(
      context.moduleName,
      'maxToolIterations',
      'must be an integer ≥ 0',
    );
  }
  const ajv = createSchemaCompiler();
  const discovered = discoverKernelTools(context, ajv);
  return new KernelEngine({
    llm: await resolveLlm(options.llm, context),
    filters: await Promise.all(
      (options.filters ?? []).map((filter) => resolveFilter(filter, context)),
    ),
    tools: ToolRegistry.build(discovered, options.tools, ajv),
    maxToolIterations,
  });
}

async function resolveLlm(
  llm: KernelModuleOptions['llm'],
  context: KernelBuildContext,
): Promise<LlmAdapter> {
  const adapter =
    typeof llm === 'function'
      ? await resolveClass(llm, context)
      : isLlmAdapter(llm)
        ? llm
        : createLlmAdapter(llm as LlmOptions, process.env, {
            moduleName: context.moduleName,
            option: 'llm',
          });
  await adapter.ready?.();
  return adapter;
}

async function resolveFilter(
  filter: KernelFilter | Type<KernelFilter>,
  context: KernelBuildContext,
): Promise<KernelFilter> {
  const instance = typeof filter === 'function' ? await resolveClass(filter, context) : filter;
  if (typeof instance?.intercept !== 'function') {
    const name =
      typeof filter === 'function'
        ? filter.name
        : ((filter as object)?.constructor?.name ?? String(filter));
    throw new InvalidModuleOptionsError(
      context.moduleName,
      'filters',
      `${name} has no intercept(context, next) method`,
    );
  }
  return instance;
}

/** A provider from the container if registered anywhere, else a new instance made with DI. */
async function resolveClass<T>(type: Type<T>, { moduleRef }: KernelBuildContext): Promise<T> {
  try {
    return moduleRef.get(type, { strict: false });
  } catch {
    return moduleRef.create(type);
  }
}
