import { setTimeout as sleep } from 'node:timers/promises';
import { linkAbort } from '../../../common/linked-abort.js';
import {
  LlmAbortedError,
  LlmConnectionError,
  LlmError,
  LlmRateLimitError,
  LlmTimeoutError,
} from '../llm-errors.js';
import { type RetryPolicy, backoffDelay } from './retry-policy.js';

/** How an adapter bounds and retries its calls. */
export interface LlmHttpSettings {
  provider: string;
  /** Deadline of an attempt; for a stream, until its response arrives. */
  timeoutMs: number;
  /** Longest silence between a stream's chunks, once its response has arrived. */
  streamIdleTimeoutMs: number;
  retry: RetryPolicy;
}

/** What an attempt tells `withRetries` as it goes. */
export interface AttemptProgress {
  /** The first token went to the caller: from now on a failure is not retried. */
  markStarted(): void;
  /** Bytes arrived: the deadline becomes `streamIdleTimeoutMs` from now. */
  heartbeat(): void;
}

/** One attempt: gets a signal that fires on timeout or caller abort, and reports its progress. */
export type Attempt<T> = (signal: AbortSignal, progress: AttemptProgress) => Promise<T>;

/**
 * Runs `attempt` with a per-attempt timeout, the caller's signal, and retries with backoff on
 * retryable `LlmError`s — honouring `Retry-After` — but never once the attempt has marked that it
 * started streaming (a retry would repeat tokens the caller already has).
 */
export async function withRetries<T>(
  settings: LlmHttpSettings,
  callerSignal: AbortSignal | undefined,
  attempt: Attempt<T>,
): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    let started = false;
    let streaming = false;
    // Linked by hand, not AbortSignal.any: a long-lived caller signal must not keep every attempt's.
    const link = linkAbort(callerSignal, settings.timeoutMs);
    try {
      return await attempt(link.signal, {
        markStarted: () => (started = true),
        heartbeat: () => {
          streaming = true;
          link.restart(settings.streamIdleTimeoutMs);
        },
      });
    } catch (raw) {
      const error = classify(raw, settings, callerSignal, link.timedOut, streaming);
      if (!error.retryable || started || retry >= settings.retry.maxRetries) throw error;
      const wait =
        error instanceof LlmRateLimitError && error.retryAfterMs !== undefined
          ? Math.min(error.retryAfterMs, settings.retry.maxDelayMs)
          : backoffDelay(settings.retry, retry);
      try {
        await sleep(wait, undefined, { signal: callerSignal });
      } catch {
        throw new LlmAbortedError(settings.provider, callerSignal?.reason);
      }
    } finally {
      link.dispose();
    }
  }
}

function classify(
  raw: unknown,
  settings: LlmHttpSettings,
  callerSignal: AbortSignal | undefined,
  timedOut: boolean,
  streaming: boolean,
): LlmError {
  if (callerSignal?.aborted) return new LlmAbortedError(settings.provider, callerSignal.reason);
  if (timedOut) {
    return streaming
      ? new LlmTimeoutError(settings.provider, settings.streamIdleTimeoutMs, 'stream chunk')
      : new LlmTimeoutError(settings.provider, settings.timeoutMs);
  }
  if (raw instanceof LlmError) return raw;
  return new LlmConnectionError(settings.provider, raw);
}
