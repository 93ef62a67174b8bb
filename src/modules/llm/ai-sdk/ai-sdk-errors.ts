import {
  LlmConnectionError,
  LlmError,
  LlmRateLimitError,
  LlmResponseError,
  LlmUnsupportedContentError,
} from '../llm-errors.js';
import { parseRetryAfter } from '../retries/retry-policy.js';

/** The fields of the AI SDK's `APICallError` the mapping reads. */
interface ApiCallErrorFields {
  name?: string;
  message?: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  cause?: unknown;
}

/**
 * An error thrown by an AI SDK model (or its stream) as the matching `LlmError`:
 * `APICallError` by status (429 with its `Retry-After`, 408 and 5xx retryable, other statuses final,
 * no status: the connection), unsupported content as `LlmUnsupportedContentError`, other `AI_*`
 * errors (a body or chunk the provider could not read) as an unreadable response, and network
 * failures (`fetch failed`, a cut body) as connection errors. An `LlmError` passes through.
 */
export function toLlmError(
  raw: unknown,
  provider: string,
  /** `stream`: an error part of a stream, which reports what the provider answered. */
  from: 'call' | 'stream' = 'call',
): LlmError {
  if (raw instanceof LlmError) return raw;
  const error = (raw ?? {}) as ApiCallErrorFields;
  const name = typeof error.name === 'string' ? error.name : '';
  const message = typeof error.message === 'string' ? error.message : describeValue(raw);
  if (name === 'AI_APICallError') return fromApiCallError(error, provider, message);
  if (name === 'AI_UnsupportedFunctionalityError' || name === 'AI_InvalidPromptError')
    return new LlmUnsupportedContentError(provider, message, { cause: raw });
  if (name.startsWith('AI_')) return new LlmResponseError(provider, undefined, message);
  if (from === 'call' && isNetworkFailure(raw)) return new LlmConnectionError(provider, raw);
  // Anything else came from what the provider sent: an error event, or a shape its package did not
  // expect.
  return new LlmResponseError(provider, undefined, message);
}

/** A finish reason's unified value in any supported specification (v2: a string). */
export function unifiedReason(finishReason: unknown): unknown {
  return typeof finishReason === 'object' && finishReason !== null
    ? (finishReason as { unified?: unknown }).unified
    : finishReason;
}

function fromApiCallError(error: ApiCallErrorFields, provider: string, message: string): LlmError {
  const status = error.statusCode;
  // A 2xx whose body broke off while it was read: the connection, not the answer.
  if (status !== undefined && status < 300 && isNetworkFailure(error.cause))
    return new LlmConnectionError(provider, error.cause);
  if (status === undefined)
    return error.isRetryable === false
      ? new LlmResponseError(provider, undefined, message)
      : new LlmConnectionError(provider, error.cause ?? error);
  const body = typeof error.responseBody === 'string' ? error.responseBody : '';
  if (status === 429) {
    const headers = lowerCaseKeys(error.responseHeaders);
    const retryAfterMs =
      headers['retry-after-ms'] !== undefined && /^\d+(\.\d+)?$/.test(headers['retry-after-ms'])
        ? Math.round(Number(headers['retry-after-ms']))
        : parseRetryAfter(headers['retry-after'] ?? null);
    return new LlmRateLimitError(provider, retryAfterMs, body);
  }
  if (status >= 300 && status < 400) {
    return new LlmResponseError(
      provider,
      status,
      'the endpoint answered with a redirect, and redirects are never followed (the API key would go along): set baseUrl to the final address',
    );
  }
  const detail = (body || message).slice(0, 500);
  // Providers mark their own overload statuses (Anthropic's 529) retryable.
  return new LlmResponseError(provider, status, detail, error.isRetryable === true || undefined);
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
  return out;
}

/**
 * A failed fetch or a body cut mid-way (undici's `fetch failed` / `terminated`, socket codes), read
 * structurally: the error may come from another realm, where `instanceof Error` is false.
 */
function isNetworkFailure(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const { message, code, cause } = raw as { message?: unknown; code?: unknown; cause?: unknown };
  return (
    message === 'fetch failed' ||
    message === 'terminated' ||
    (typeof code === 'string' && NETWORK_CODE.test(code)) ||
    (typeof cause === 'object' && cause !== null && isNetworkFailure(cause))
  );
}

/** Socket and undici error codes (not an API's own error codes, such as `context_length_exceeded`). */
const NETWORK_CODE = /^(E(?!RR_)[A-Z_]+|UND_ERR_[A-Z_]+)$/;

/** A thrown or streamed value that is not an `Error` (a provider's error event body), as text. */
function describeValue(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value).slice(0, 500);
  } catch {
    return String(value);
  }
}
