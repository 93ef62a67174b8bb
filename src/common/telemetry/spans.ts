import { ATTR, type StoreSystem } from './attributes.js';
import {
  type Attributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
} from '@opentelemetry/api';

/** The instrumentation scope of every span the package makes. */
export const INSTRUMENTATION_SCOPE = 'nest-agent-memory';

/**
 * The package's tracer, from `@opentelemetry/api` only: a no-op until the app registers an SDK
 * (then spans go where the app's tracer provider sends them).
 */
export const tracer = trace.getTracer(INSTRUMENTATION_SCOPE);

/**
 * Runs `work` in a new active span (a child of the active one): ended when `work` settles, marked
 * as an error (`error.type`, status, exception event) when it throws. When nothing records the
 * span (no SDK, or sampled out), `work` runs as is: the attributes are not even built.
 */
export function inSpan<T>(
  name: string,
  attributes: () => Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const span = tracer.startSpan(name, { kind });
  if (!span.isRecording()) return work(span);
  span.setAttributes(attributes());
  return context.with(trace.setSpan(context.active(), span), async () => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * One operation of a built-in store in its span (`<store>.<operation>`): `db.system.name` and
 * `db.operation.name` with `extra`; a client span for a database, internal for process memory.
 */
export function inStoreSpan<T>(
  store: 'chat_memory' | 'longterm_memory',
  system: StoreSystem,
  operation: string,
  extra: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `${store}.${operation}`,
    () => ({
      [ATTR.store]: store,
      [ATTR.dbSystem]: system,
      [ATTR.dbOperation]: operation,
      ...extra,
    }),
    work,
    system === 'memory' ? SpanKind.INTERNAL : SpanKind.CLIENT,
  );
}

/**
 * Marks a span failed by `error`: its name as `error.type`. Its message (and an exception event)
 * only with `details`: error messages may quote data — a database's duplicate key, a model's
 * malformed arguments — so they stay out of traces unless content capture is on.
 */
export function markFailed(span: Span, error: unknown, details = false): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  span.setAttribute('error.type', failure.name);
  if (!details) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    return;
  }
  span.recordException(failure);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
}

/** Runs `work` with `span` active, so spans started inside (and across its awaits) are children. */
export function withSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}
