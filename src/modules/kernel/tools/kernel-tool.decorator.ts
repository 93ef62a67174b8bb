import { SetMetadata } from '@nestjs/common';
import type { KernelToolOptions } from '../interfaces/kernel-tool.interface.js';

/** Metadata key under which `@KernelTool()` stores its options. */
export const KERNEL_TOOL_METADATA = 'agent-memory:kernel-tool';

/**
 * Makes a provider method a tool of every kernel (unless a kernel's `forRoot({ tools })` lists a
 * subset). The method is called as `(args, context)` with arguments validated against
 * `parameters`; what it returns (JSON-serializable) is the result the model reads.
 *
 * @example
 * \@KernelTool({ name: 'clock', description: 'Current time', parameters: { type: 'object' } })
 * now(): string { return new Date().toISOString(); }
 */
export function KernelTool(options: KernelToolOptions): MethodDecorator {
  return SetMetadata(KERNEL_TOOL_METADATA, options);
}
