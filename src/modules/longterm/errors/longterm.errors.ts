import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/**
 * The long-term tier is off (`LongtermMemoryModule` without a URI, or not imported) and something
 * used it. An app that configures the URI from its own setting names that setting in `hint`.
 */
export class LongtermMemoryDisabledError extends AgentMemoryError {
  constructor(what = 'Long-term memory', hint?: string) {
    super(
      `${what} is disabled: give LongtermMemoryModule.forRoot({ uri }) a URI (e.g. sqlite:./data/memory.sqlite or postgres://…)` +
        (hint ? `; ${hint}` : ''),
    );
  }
}

/** Writing a run's staged rows failed; the run fails (a queued run retries and re-flushes the same rows). */
export class LongtermFlushError extends AgentMemoryError {
  constructor(
    readonly entityId: string,
    /** The keys the failed batch held. */
    readonly keys: readonly string[],
    cause: unknown,
  ) {
    super(
      `Flushing long-term rows of entity "${entityId}" failed (keys ${keys.map((k) => `"${k}"`).join(', ')}): ${String(cause)}`,
      { cause },
    );
  }
}

/** A tool used `context.longterm` in a run without an `entityId`: long-term memory is entity-scoped. */
export class LongtermNoEntityError extends AgentMemoryError {
  constructor() {
    super(
      'This run has no entityId, and long-term memory is kept per entity: pass entityId to AgentService.run() to use context.longterm',
    );
  }
}
