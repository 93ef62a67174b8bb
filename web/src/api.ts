/**
 * The API key the page sends (`Authorization: Bearer`), kept in this tab's session storage: it is
 * gone when the tab closes, and other tabs and later visits never read it (a key in local storage
 * would outlive the session on a shared machine).
 */
const KEY_STORAGE = 'agent-memory:api-key';

export function apiKey(): string {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

export function setApiKey(key: string): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  // A key kept by an earlier version of the page goes.
  localStorage.removeItem(KEY_STORAGE);
}

export function authHeaders(): Record<string, string> {
  const key = apiKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/** An error answer of the API: `{ statusCode, error, message }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GETs JSON from the API with the page's key. */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: authHeaders() });
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new ApiError(response.status, body.message ?? response.statusText);
  return body as T;
}

/** A path segment, URL-encoded. */
export const seg = encodeURIComponent;
