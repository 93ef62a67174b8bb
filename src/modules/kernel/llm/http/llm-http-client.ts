import { setTimeout as sleep } from 'node:timers/promises';
import { linkAbort } from '../../../../common/linked-abort.js';
import {
  LlmAbortedError,
  LlmConnectionError,
  LlmError,
  LlmRateLimitError,
  LlmResponseError,
  LlmTimeoutError,
} from '../llm-errors.js';
import { type RetryPolicy, backoffDelay, parseRetryAfter } from './retry-policy.js';

/** Settings shared by the HTTP adapters. */
export interface LlmHttpSettings {
  provider: string;
  timeoutMs: number;
  retry: RetryPolicy;
}

/** One attempt: gets a signal that fires on timeout or caller abort; `started()` marks the first token. */
export type Attempt<T> = (signal: AbortSignal, markStarted: () => void) => Promise<T>;

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
    // Linked by hand, not AbortSignal.any: a long-lived caller signal must not keep every attempt's.
    const link = linkAbort(callerSignal, settings.timeoutMs);
    try {
      return await attempt(link.signal, () => (started = true));
    } catch (raw) {
      const error = classify(raw, settings, callerSignal, link.timedOut);
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

/**
 * POSTs JSON and returns the response if its status is 2xx; otherwise throws the matching
 * `LlmError` (429 → rate limit with `Retry-After`, others → response error with the body).
 */
export async function postJson(
  settings: LlmHttpSettings,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  if (response.status === 429) {
    throw new LlmRateLimitError(
      settings.provider,
      parseRetryAfter(response.headers.get('retry-after')),
      text,
    );
  }
  throw new LlmResponseError(
    settings.provider,
    response.status,
    text.slice(0, 500) || response.statusText,
  );
}

/** Reads a whole JSON body, turning a broken one into `LlmResponseError`. */
export async function readJson(settings: LlmHttpSettings, response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LlmResponseError(
      settings.provider,
      undefined,
      `body is not JSON: ${text.slice(0, 200)}`,
    );
  }
}

function classify(
  raw: unknown,
  settings: LlmHttpSettings,
  callerSignal: AbortSignal | undefined,
  timedOut: boolean,
): LlmError {
  if (callerSignal?.aborted) return new LlmAbortedError(settings.provider, callerSignal.reason);
  if (timedOut) return new LlmTimeoutError(settings.provider, settings.timeoutMs);
  if (raw instanceof LlmError) return raw;
  return new LlmConnectionError(settings.provider, raw);
}
