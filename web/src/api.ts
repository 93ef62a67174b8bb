/**
 * The API key the page sends (`Authorization: Bearer`), kept in this tab's session storage: it is
 * gone when the tab closes, and other tabs and later visits never read it (a key in local storage
 * would outlive the session on a shared machine).
 */
const KEY_STORAGE = 'agent-memory:api-key';
/** The conversation the chat shows, remembered in this browser (the inspector opens it too). */
export const CURRENT_STORAGE = 'agent-memory:current';
/** The entity whose long-term memory the chat and the inspector use. */
export const ENTITY_STORAGE = 'agent-memory:entity';
/** The event asking the header to open and focus the key field (after a 401). */
export const NEED_KEY_EVENT = 'agent-memory:need-key';

/** The key this tab sends, or `''`. */
export function apiKey(): string {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

/** Keeps `key` for this tab (an empty key forgets it). */
export function setApiKey(key: string): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  // A key kept by an earlier version of the page goes.
  localStorage.removeItem(KEY_STORAGE);
}

/** The `Authorization` header of `key` (default: the page's key), if there is one. */
export function authHeaders(key = apiKey()): Record<string, string> {
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/** The key a request's headers carry (`''` for none). */
export function keyOf(headers: HeadersInit | undefined): string {
  const authorization = new Headers(headers).get('Authorization') ?? '';
  return authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
}

/** The query parameter naming the conversation a chat tab shows: `/?conversation=<id>`. */
export const CONVERSATION_PARAM = 'conversation';

/**
 * The conversation a chat tab opens: the one in its URL (a reload, or a link), else the one this
 * browser showed last, else a new one. Each tab keeps its own in its URL, so a second tab never
 * takes the first one's place.
 */
export function initialConversation(): string {
  return (
    new URLSearchParams(location.search).get(CONVERSATION_PARAM) ||
    localStorage.getItem(CURRENT_STORAGE) ||
    newConversationId()
  );
}

/**
 * Shows `id` in this tab's URL (replacing the history entry) and remembers it as the one this
 * browser showed last (what a new tab and the inspector open).
 */
export function rememberConversation(id: string): void {
  localStorage.setItem(CURRENT_STORAGE, id);
  if (location.pathname.startsWith('/inspector')) return;
  const url = new URL(location.href);
  if (url.searchParams.get(CONVERSATION_PARAM) === id) return;
  url.searchParams.set(CONVERSATION_PARAM, id);
  history.replaceState(history.state, '', url);
}

/** A new conversation id (the server creates the conversation on its first turn). */
export function newConversationId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * An error answer of the API (`{ statusCode, error, message }`), with its status and the key the
 * request carried (`''` for none): a refusal of an earlier key says nothing about the current one.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly sentKey: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The error of a failed answer: its status, the server's message (never the raw body) and the key
 * the request was sent with.
 */
export async function apiErrorOf(response: Response, sentKey: string): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let message = response.statusText;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
    else if (Array.isArray(body.message)) message = body.message.join('; ');
  } catch {
    if (text && !text.trimStart().startsWith('<')) message = text.slice(0, 300);
  }
  return new ApiError(response.status, message, sentKey);
}

/** Calls the API with the page's key; resolves with the JSON answer (`undefined` for a 204). */
export async function callApi<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
  const key = apiKey();
  const response = await fetch(path, {
    method,
    headers: {
      ...authHeaders(key),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw await apiErrorOf(response, key);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** GETs JSON from the API with the page's key. */
export function getJson<T>(path: string): Promise<T> {
  return callApi<T>(path);
}

/** A path segment, URL-encoded. */
export const seg = encodeURIComponent;
