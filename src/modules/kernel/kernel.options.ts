import type { Type } from '@nestjs/common';
import type { KernelFilter } from './interfaces/kernel-filter.interface.js';
import type { KernelToolDefinition } from './interfaces/kernel-tool.interface.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { LlmOptions } from '../llm/llm-options.js';

/** Options of `KernelModule.forRoot`; every one is validated at bootstrap. */
export interface KernelModuleOptions {
  /** A built-in provider's settings, or your own adapter (instance, or class resolved through DI). */
  llm: LlmOptions | LlmAdapter | Type<LlmAdapter>;
  /**
   * Filters in nesting order (first = outermost): instances, or classes taken from the container
   * (else instantiated with DI). Put `memoryFilter(store)` first to give the kernel memory.
   */
  filters?: Array<KernelFilter | Type<KernelFilter>>;
  /**
   * The kernel's tools: every discovered `@KernelTool()` method, or — when tool names are listed —
   * only the named ones; plain tool objects listed are added either way (listing only objects keeps
   * every discovered tool); `[]` gives the kernel no tools. Duplicate names fail at bootstrap.
   */
  tools?: Array<string | KernelToolDefinition>;
  /** Tool rounds per invoke before `MaxToolIterationsError` (default 10). */
  maxToolIterations?: number;
}

/** Module extras, next to the options. */
export interface KernelModuleExtras {
  /** Make `KernelService` injectable everywhere (default false). */
  isGlobal?: boolean;
}
