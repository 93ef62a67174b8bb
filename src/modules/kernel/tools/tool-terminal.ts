import type { KernelToolRequest, KernelToolResult } from '../interfaces/kernel-filter.interface.js';
import { linkAbort } from '../../../common/linked-abort.js';
import type { RegisteredTool } from './registered-tool.js';

/**
 * The innermost step of the tool phase: parse the arguments, validate them against the tool's
 * JSON Schema, run the handler with the tool's timeout. Every failure — unknown tool, bad JSON,
 * invalid arguments, a thrown error, a timeout — becomes an error result the model can read.
 */
export async function runToolCall(
  tool: RegisteredTool | undefined,
  request: KernelToolRequest,
): Promise<KernelToolResult> {
  if (!tool) return { error: `unknown tool "${request.name}"` };
  let args: unknown;
  try {
    args = request.arguments.trim() === '' ? {} : JSON.parse(request.arguments);
  } catch (error) {
    return { error: `arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { error: 'arguments must be a JSON object' };
  }
  if (!tool.validate(args)) {
    const details = (tool.validate.errors ?? [])
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    return { error: `invalid arguments: ${details}` };
  }
  return invokeWithTimeout(tool, args as Record<string, unknown>, request);
}

async function invokeWithTimeout(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  request: KernelToolRequest,
): Promise<KernelToolResult> {
  const timeoutError = `tool "${tool.spec.name}" timed out after ${tool.timeoutMs} ms`;
  const link = linkAbort(request.context.signal, tool.timeoutMs, () => new Error(timeoutError));
  const timedOut = new Promise<KernelToolResult>((resolve) =>
    link.signal.addEventListener('abort', () => link.timedOut && resolve({ error: timeoutError }), {
      once: true,
    }),
  );
  const ran = (async (): Promise<KernelToolResult> => {
    try {
      return { result: await tool.invoke(args, { ...request.context, signal: link.signal }) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  })();
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    link.dispose();
  }
}

/** The text a tool message carries: the result as is if a string, else its JSON; errors as `{"error":…}`. */
export function toolMessageContent(outcome: KernelToolResult): string {
  if (outcome.error !== undefined) return JSON.stringify({ error: outcome.error });
  return typeof outcome.result === 'string'
    ? outcome.result
    : (JSON.stringify(outcome.result ?? null) ?? 'null');
}
