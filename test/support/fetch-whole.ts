/** Statuses whose answer has no body (a `Response` built with one throws). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * `fetch` that reads the whole answer before resolving. An answer whose body is never read keeps
 * its connection busy, paused, after the server is gone (it never sees the close): a test that
 * checks only statuses or headers would leave those sockets open. The answer comes back as a
 * `Response` holding the bytes read.
 */
export async function fetchWhole(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const body = await response.arrayBuffer();
  return new Response(NO_BODY.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
