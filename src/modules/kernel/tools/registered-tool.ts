import type { ValidateFunction } from 'ajv';
import type { KernelToolOptions, ToolContext } from '../interfaces/kernel-tool.interface.js';
import type { ToolSpec } from '../../llm/interfaces/llm.interface.js';

/** Stand-in class that `getClass()` reports for a tool given as a plain object. */
export class PlainKernelTool {}

/** A tool ready to run: its spec, settings, compiled argument validator and handler. */
export interface RegisteredTool {
  readonly spec: ToolSpec;
  readonly serial: boolean;
  readonly timeoutMs?: number;
  readonly validate: ValidateFunction;
  readonly invoke: (args: Record<string, unknown>, context: ToolContext) => unknown;
  /** What filters see as `getClass()` / `getHandler()`. */
  readonly targetClass: new (...args: never[]) => unknown;
  readonly targetHandler: (...args: never[]) => unknown;
  /** Where it came from, for error messages. */
  readonly origin: string;
  readonly options: KernelToolOptions;
}
