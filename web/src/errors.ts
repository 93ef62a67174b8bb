import { ApiError, NEED_KEY_EVENT, apiKey } from './api.js';

/** What the page says when the server cannot be reached at all. */
export const UNREACHABLE = "Can't reach the server. Check that it is running, then try again.";
/** What the page says to a request refused for want of a key. */
export const NEEDS_KEY = "This page needs an API key: enter one of the app's API_KEYS above.";
/** What the page says when the server refused the key the page sent. */
export const KEY_REFUSED =
  "The server refused this API key: enter one of the app's API_KEYS above.";

/** A plain sentence for an HTTP status; `server` is the API's own message (used for 4xx details). */
function byStatus(status: number, server: string): string {
  if (status === 401) return apiKey() ? KEY_REFUSED : NEEDS_KEY;
  if (status === 403) return 'This key may not do that. Use another key, or ask who runs the app.';
  if (status === 404) return 'Not found: it may have been deleted, or it belongs to another key.';
  if (status === 408) return 'The server took too long to answer. Try again.';
  if (status === 413)
    return 'That is too large for the server: send less text, or fewer or smaller images.';
  if (status === 429) return 'Too many requests for now. Wait a moment, then try again.';
  // A 503 from the app says what is off (the long-term tier, say): its own words, when plain.
  if (status === 503 && isPlainSentence(server)) return `The server can't do that now. ${server}`;
  if (status >= 500)
    return `The server had a problem (error ${status}). Try again in a moment; if it keeps happening, check the server's log.`;
  return server && !looksLikeJson(server) ? server : 'The server could not accept this request.';
}

/**
 * A short text that says something: neither JSON, nor HTML (a proxy's error page), nor the bare
 * status text ("Service Unavailable", what a server shutting down answers).
 */
function isPlainSentence(text: string): boolean {
  return (
    text.length > 0 &&
    text.length <= 400 &&
    !looksLikeJson(text) &&
    !/^\s*</.test(text) &&
    !/^\s*service unavailable\.?\s*$/i.test(text)
  );
}

function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

/**
 * A failure in plain words, never raw JSON: "Can't reach the server" for a fetch that failed, a
 * sentence per HTTP status, the message of a stream's `error` chunk (already plain) as it is.
 */
export function plainMessage(failure: unknown): string {
  if (failure instanceof ApiError) return byStatus(failure.status, failure.message);
  const message = failure instanceof Error ? failure.message : String(failure);
  if (/failed to fetch|network ?error|load failed|networkerror/i.test(message)) return UNREACHABLE;
  if (looksLikeJson(message)) {
    try {
      const body = JSON.parse(message) as { statusCode?: number; message?: string };
      if (typeof body.statusCode === 'number') return byStatus(body.statusCode, body.message ?? '');
    } catch {
      // Not JSON after all: said as it is below.
    }
    return 'The server could not accept this request.';
  }
  return message || 'Something went wrong. Try again.';
}

/** Whether a failure is the server refusing the page's key (or its lack of one). */
export function isAuthFailure(failure: unknown): failure is ApiError {
  return failure instanceof ApiError && failure.status === 401;
}

/**
 * {@link plainMessage}, and after a 401 of the key the page holds now (or of no key, while it has
 * none) asks the header to open and focus the key field: the sentence says where the key goes, the
 * focus takes the user there. A late refusal of a request sent before another key was saved asks
 * nothing (it would take the focus from wherever the user now is).
 */
export function reportFailure(failure: unknown): string {
  if (isAuthFailure(failure) && failure.sentKey === apiKey())
    window.dispatchEvent(new Event(NEED_KEY_EVENT));
  return plainMessage(failure);
}
