import type { CallHandler, NestInterceptor } from '@nestjs/common';
import { EmptyError, type Observable, defer, isObservable, lastValueFrom } from 'rxjs';
import type { KernelExecutionContext } from '../context/kernel-execution-context.js';

/** One step of the onion; the innermost is the model call or the tool call itself. */
export type Layer<Request, Result, Scope> = (
  context: KernelExecutionContext<Request, Scope>,
) => Promise<Result>;

/**
 * An onion of filters around one terminal, composed once when the kernel is built: the first filter
 * is the outermost. Calling it creates only the per-call context forks and call handlers. Each
 * `next.handle()` runs the inner layers anew (so a filter may retry), on a fork of the context
 * taken at that moment (so a request replaced by a filter is seen by the layers inside it only).
 */
export class FilterChain<Request, Result, Scope = unknown> {
  private readonly entry: Layer<Request, Result, Scope>;

  constructor(filters: readonly NestInterceptor[], terminal: Layer<Request, Result, Scope>) {
    this.entry = filters.reduceRight<Layer<Request, Result, Scope>>(
      (inner, filter) => (context) => runLayer(filter, context, inner),
      terminal,
    );
  }

  /** Runs the chain for one call. */
  run(context: KernelExecutionContext<Request, Scope>): Promise<Result> {
    return this.entry(context);
  }
}

async function runLayer<Request, Result, Scope>(
  filter: NestInterceptor,
  context: KernelExecutionContext<Request, Scope>,
  inner: Layer<Request, Result, Scope>,
): Promise<Result> {
  const next: CallHandler<Result> = { handle: () => defer(() => inner(context.fork())) };
  const output: unknown = await filter.intercept(context, next);
  if (!isObservable(output)) {
    throw new TypeError(
      `${filter.constructor.name}.intercept() must return an Observable (e.g. next.handle())`,
    );
  }
  try {
    return await lastValueFrom(output as Observable<Result>);
  } catch (error) {
    if (error instanceof EmptyError) {
      throw new TypeError(
        `${filter.constructor.name}.intercept() completed without emitting the result`,
      );
    }
    throw error;
  }
}
