import { AgentMemoryError } from '../../common/errors/agent-memory.error.js';

/** Base of every error an LLM adapter throws. `retryable` says whether another attempt may succeed. */
export abstract class LlmError extends AgentMemoryError {
  abstract readonly retryable: boolean;

  protected constructor(
    message: string,
    /** The adapter's provider, e.g. `openai`. */
    readonly provider: string,
    options?: ErrorOptions,
  ) {
    super(`${provider}: ${message}`, options);
  }
}

/** The provider answered 429. `retryAfterMs` is what its `Retry-After` header asked for, if any. */
export class LlmRateLimitError extends LlmError {
  readonly retryable = true;
  constructor(
    provider: string,
    readonly retryAfterMs: number | undefined,
    readonly body: string,
  ) {
    super(
      `rate limited (429)${retryAfterMs === undefined ? '' : `, retry after ${retryAfterMs} ms`}`,
      provider,
    );
  }
}

/** An attempt took longer than the adapter's timeout, or a stream went silent for too long. */
export class LlmTimeoutError extends LlmError {
  readonly retryable = true;
  constructor(
    provider: string,
    readonly timeoutMs: number,
    /** What did not come in time. */
    readonly waitingFor: 'answer' | 'stream chunk' = 'answer',
  ) {
    super(
      waitingFor === 'answer'
        ? `no complete answer within ${timeoutMs} ms`
        : `the stream went silent for ${timeoutMs} ms`,
      provider,
    );
  }
}

/** The connection failed or dropped before a complete answer. */
export class LlmConnectionError extends LlmError {
  readonly retryable = true;
  constructor(provider: string, cause: unknown) {
    super(`connection failed: ${describeCause(cause)}`, provider, { cause });
  }
}

/**
 * The provider answered with an error status, or with a body the adapter cannot read. 408 and 5xx
 * are retryable; other 4xx are final (the request itself is wrong).
 */
export class LlmResponseError extends LlmError {
  readonly retryable: boolean;
  constructor(
    provider: string,
    readonly status: number | undefined,
    detail: string,
    /** Overrides the rule above, for a provider that marks a status of its own (Anthropic's 529). */
    retryable?: boolean,
  ) {
    super(
      status === undefined ? `unreadable response: ${detail}` : `HTTP ${status}: ${detail}`,
      provider,
    );
    this.retryable = retryable ?? (status !== undefined && (status === 408 || status >= 500));
  }
}

/**
 * The model cannot take part of the request (a file type it does not read, an image where it takes
 * text only, …), as the provider package reports it. Never retried: the request must change.
 */
export class LlmUnsupportedContentError extends LlmError {
  readonly retryable = false;
  constructor(provider: string, detail: string, options?: ErrorOptions) {
    super(`cannot take this request: ${detail}`, provider, options);
  }
}

/** The caller's `AbortSignal` fired. Never retried. */
export class LlmAbortedError extends LlmError {
  readonly retryable = false;
  constructor(provider: string, reason?: unknown) {
    super(`aborted${reason instanceof Error ? `: ${reason.message}` : ''}`, provider, {
      cause: reason,
    });
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code =
      (cause as { code?: string }).code ?? (cause.cause as { code?: string } | undefined)?.code;
    return code ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}
