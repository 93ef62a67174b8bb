/** How an adapter retries transient failures (429, 408, 5xx, connection errors, timeouts). */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** First backoff delay; doubles each retry, with jitter (default 500 ms). */
  baseDelayMs: number;
  /** Cap of any single wait, `Retry-After` included (default 30 s). */
  maxDelayMs: number;
}

/** The default retry policy: two retries with exponential backoff. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** The backoff before retry number `retry` (0-based): exponential, with ±25 % jitter. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const exponential = policy.baseDelayMs * 2 ** retry;
  const jitter = exponential * 0.25 * (Math.random() * 2 - 1);
  return Math.min(policy.maxDelayMs, Math.max(0, Math.round(exponential + jitter)));
}

/**
 * Parses a `Retry-After` header (seconds, or an HTTP date) into milliseconds from `now`.
 * Returns `undefined` when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
