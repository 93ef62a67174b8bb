import type { IncomingMessage, ServerResponse } from 'node:http';

/** Names of this machine that no other site can take: `localhost`, `*.localhost`, 127/8, `::1`. */
function isLoopbackName(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === '[::1]'
  );
}

/** The hostname of a `Host` header, lower-cased, without its port (`[::1]` kept in brackets). */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end < 0 ? undefined : lower.slice(0, end + 1);
  }
  return lower.replace(/:\d*$/, '').replace(/\.$/, '');
}

/** What the Host check needs to know. */
export interface AllowedHostsOptions {
  /** `ALLOWED_HOSTS`: the names the app is served under (loopback names are always served). */
  allowedHosts?: readonly string[];
  /** Whether the API is open (no `API_KEYS`): then only loopback names are served by default. */
  open: boolean;
}

/**
 * A defence against DNS rebinding: a web page the developer visits can point its own name at
 * 127.0.0.1 and call an open API running there with the page's origin. Requests whose `Host` is not
 * a loopback name or one of `ALLOWED_HOSTS` are answered 421 — always when `ALLOWED_HOSTS` is set,
 * and by default when the API is open (with API keys and no list, any Host is served: the keys are
 * the defence). `/health` is always served (probes use the pod's address).
 */
export function allowedHostsMiddleware(options: AllowedHostsOptions) {
  const allowed = new Set((options.allowedHosts ?? []).map((name) => name.toLowerCase()));
  const enforced = allowed.size > 0 || options.open;
  // Why this Host is refused: not in the list the app was given, or not loopback while it is open.
  const message =
    allowed.size > 0
      ? 'This Host is not served here: add it to ALLOWED_HOSTS'
      : 'This Host is not served here: add it to ALLOWED_HOSTS (the API is open without API_KEYS, so only loopback names are served by default)';
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    if (!enforced || request.url === '/health' || request.url?.startsWith('/health?'))
      return next();
    const hostname = hostnameOf(request.headers.host);
    if (hostname && (isLoopbackName(hostname) || allowed.has(hostname))) return next();
    response.statusCode = 421;
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.end(
      JSON.stringify({
        statusCode: 421,
        error: 'Misdirected Request',
        message,
      }),
    );
  };
}
