import type { ExecutionContext, Type } from '@nestjs/common';
import type {
  KernelChatRequest,
  KernelToolRequest,
} from '../interfaces/kernel-filter.interface.js';

/** The two phases a kernel filter runs in. */
export type KernelPhase = 'kernel-chat' | 'kernel-tool';

/**
 * The `ExecutionContext` a kernel filter gets: `getType()` is the phase, `getArgs()` is `[request]`,
 * `getClass()`/`getHandler()` are the adapter's or tool's class and method (so `Reflector` metadata
 * works). HTTP, RPC and WebSocket switches are unsupported. Each layer of the onion gets its own
 * fork, so a request a filter replaces is seen by the layers inside it only.
 */
export class KernelExecutionContext<
  Request = KernelChatRequest | KernelToolRequest,
  Scope = unknown,
> implements ExecutionContext {
  constructor(
    private readonly phase: KernelPhase,
    private readonly args: [Request],
    private readonly targetClass: Type<unknown>,
    private readonly targetHandler: (...args: never[]) => unknown,
    /** The kernel's own per-call state for the innermost step; not for filters. */
    readonly scope: Scope,
  ) {}

  getType<TContext extends string = KernelPhase>(): TContext {
    return this.phase as TContext;
  }

  getClass<T = unknown>(): Type<T> {
    return this.targetClass as Type<T>;
  }

  getHandler(): (...args: never[]) => unknown {
    return this.targetHandler;
  }

  getArgs<T extends unknown[] = [Request]>(): T {
    return this.args as unknown as T;
  }

  getArgByIndex<T = unknown>(index: number): T {
    return this.args[index] as unknown as T;
  }

  /** The current request. */
  get request(): Request {
    return this.args[0];
  }

  /** Replaces the request for the layers inside the calling filter. */
  replaceRequest(request: Request): void {
    this.args[0] = request;
  }

  /** A copy for the next layer inward. */
  fork(): KernelExecutionContext<Request, Scope> {
    return new KernelExecutionContext(
      this.phase,
      [this.args[0]],
      this.targetClass,
      this.targetHandler,
      this.scope,
    );
  }

  switchToHttp(): ReturnType<ExecutionContext['switchToHttp']> {
    throw unsupported('HTTP');
  }

  switchToRpc(): ReturnType<ExecutionContext['switchToRpc']> {
    throw unsupported('RPC');
  }

  switchToWs(): ReturnType<ExecutionContext['switchToWs']> {
    throw unsupported('WebSocket');
  }
}

function unsupported(kind: string): Error {
  return new Error(
    `A kernel filter runs outside any ${kind} request: switchTo${kind === 'WebSocket' ? 'Ws' : kind === 'HTTP' ? 'Http' : 'Rpc'}() is unsupported`,
  );
}

/** The chat request of a `kernel-chat` context. */
export function getKernelChatRequest(context: ExecutionContext): KernelChatRequest {
  assertPhase(context, 'kernel-chat');
  return context.getArgByIndex<KernelChatRequest>(0);
}

/** The tool request of a `kernel-tool` context. */
export function getKernelToolRequest(context: ExecutionContext): KernelToolRequest {
  assertPhase(context, 'kernel-tool');
  return context.getArgByIndex<KernelToolRequest>(0);
}

/** Replaces the request that the layers inside the calling filter will see. */
export function replaceKernelRequest(
  context: ExecutionContext,
  request: KernelChatRequest | KernelToolRequest,
): void {
  if (!(context instanceof KernelExecutionContext)) throw new Error('Not a kernel filter context');
  context.replaceRequest(request);
}

function assertPhase(context: ExecutionContext, phase: KernelPhase): void {
  if (context.getType<string>() !== phase) {
    throw new Error(`Expected a ${phase} context, got ${context.getType<string>()}`);
  }
}
