import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/** The long-term tier is off (no URI) and something used it. The HTTP edge maps it to 503. */
export class LongtermMemoryDisabledError extends AgentMemoryError {
  constructor(what = 'Long-term memory') {
    super(
      `${what} is disabled: set longtermMemory.uri (LongtermMemoryModule.forRoot({ uri })) or the LONGTERM_MEMORY_URI variable`,
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
