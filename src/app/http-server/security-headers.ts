import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Middleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** What every policy here refuses: framing, `<base>`, plugins. */
const LOCKED = {
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
  formAction: ["'self'"],
};

/**
 * The page's policy (and the API's): everything from this origin only, scripts from files only
 * (the bundle has no inline script), no framing.
 */
export const PAGE_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    connectSrc: ["'self'"],
    ...LOCKED,
  },
};

/** Swagger UI's policy: its HTML carries an inline `<style>` and `data:` icons, no inline script. */
export const DOCS_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    ...LOCKED,
  },
};

/**
 * Security headers by helmet: a Content-Security-Policy (the page's, or Swagger UI's under `/docs`;
 * none for the queue board, a third-party UI behind the admin key), `X-Content-Type-Options:
 * nosniff`, `Referrer-Policy: no-referrer`, no `X-Powered-By`, and helmet's other defaults; and
 * `Cache-Control: no-store` on every answer but the bundle's static assets, so no tenant data is
 * kept by a browser or a proxy.
 */
export function securityHeaders(paths: {
  docs: string;
  queueBoard: string;
  /** Send HSTS (only for a deployment with its own names, `ALLOWED_HOSTS`; never to localhost). */
  hsts: boolean;
}): Middleware {
  const options = {
    referrerPolicy: { policy: 'no-referrer' as const },
    strictTransportSecurity: paths.hsts,
  };
  const page = helmet({ ...options, contentSecurityPolicy: PAGE_CSP });
  const docs = helmet({ ...options, contentSecurityPolicy: DOCS_CSP });
  const board = helmet({ ...options, contentSecurityPolicy: false });
  const docsPaths = [paths.docs, `${paths.docs}-json`, `${paths.docs}-yaml`];
  // Express matches routes case-insensitively: so does this.
  const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0]!.toLowerCase();
    if (!path.startsWith('/assets/')) response.setHeader('cache-control', 'no-store');
    const chosen = docsPaths.some((prefix) => under(path, prefix))
      ? docs
      : under(path, paths.queueBoard)
        ? board
        : page;
    chosen(request, response, next);
  };
}
