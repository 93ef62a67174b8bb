import type { LongtermRunView } from '../../longterm/session/longterm-session.js';
import type { WorkingMemoryHandle } from '../../working-memory/interfaces/working-memory.interface.js';

/**
 * What a tool handler gets besides its arguments. Tools run at least once (a retried run may run
 * a step again), so a tool with outside side effects dedupes on `idempotencyKey`.
 */
export interface ToolContext {
  /** The invoke's (kernel) or run's (agent) id. */
  runId: string;
  conversationId?: string;
  entityId?: string;
  /** The model's id of this call (unique only within its model message: providers reuse `call_0`). */
  toolCallId: string;
  /**
   * `runId:round:toolCallId`: the same on every attempt of the same step, and different for every
   * call of the run (the round tells apart calls of different rounds that reuse an id). A turn that
   * the agent reruns after a version conflict (`conflictPolicy: 'retry'`) makes new model calls: its
   * keys are `runId/attempt:round:toolCallId`.
   */
  idempotencyKey: string;
  /** Fires when the invoke is aborted or the tool's timeout passes. */
  signal: AbortSignal;
  /**
   * The run's long-term memory (staged writes, overlaid reads). Set in every agent run: when the run
   * has no `entityId` or the tier is off, every use throws an error saying so
   * (`LongtermNoEntityError`, `LongtermMemoryDisabledError`); check `entityId` first where a run may
   * have none. Absent in plain kernel invokes.
   */
  longterm?: LongtermRunView;
  /** The conversation's working memory, when the app has `WorkingMemoryModule`. */
  workingMemory?: WorkingMemoryHandle;
}

/** A tool's implementation: validated arguments in, any JSON-serializable result out. */
export type ToolHandler = (args: Record<string, unknown>, context: ToolContext) => unknown;

/** How a tool is described to the model and run. */
export interface KernelToolOptions {
  /** Unique among a kernel's tools; `[A-Za-z0-9_-]{1,64}`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema); arguments are validated before the handler. */
  parameters: Record<string, unknown>;
  /** Wait for the round's earlier calls, and make later ones wait for this (default false). */
  serial?: boolean;
  /** Time limit of one call, after which it becomes an error result (default: none). */
  timeoutMs?: number;
}

/** A tool given as a plain object (instead of a `@KernelTool()` method). */
export interface KernelToolDefinition extends KernelToolOptions {
  handler: ToolHandler;
}
