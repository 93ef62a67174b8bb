import type { NestExpressApplication } from '@nestjs/platform-express';
import { AgentService } from 'nest-agent-memory';
import type { AllConfig } from '../config/validate-env.js';
import { join } from 'node:path';
import { adminKeyAuth, guardedMiddleware } from './admin/admin-key.middleware.js';
import { AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { mountQueueBoard, QUEUE_BOARD_PATH } from './admin/queue-board.js';
import { WEB_ROOT } from './web/web-assets.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { setupDocs } from './docs/setup-docs.js';
import { InFlightRequests } from './lifecycle/in-flight-requests.js';
import { jsonBody } from './http-server/json-body.js';
import { allowedHostsMiddleware } from './http-server/allowed-hosts.js';
import { securityHeaders } from './http-server/security-headers.js';
import { AppMetrics } from './telemetry/app-metrics.js';
import { METRICS_PATH, mountMetrics } from './telemetry/metrics-endpoint.js';

/**
 * What the app needs beyond its modules, shared by `main.ts` and the e2e tests: the Host check
 * (DNS rebinding), security headers (helmet), JSON bodies up to
 * the limit (413 from the Content-Length alone, or as soon as a chunked body passes it, and the
 * connection closes unread), in-flight request counting for
 * graceful shutdown, the OpenAPI docs behind the same auth as the API, and (with the Bull queue)
 * the read-only queue board at `/admin/queues` and `GET /metrics` behind `ADMIN_API_KEY`. Create the app with
 * `bodyParser: false`.
 */
export function configureApp(app: NestExpressApplication, config: AllConfig): void {
  const authenticator = app.get(ApiKeyAuthenticator);
  app.disable('x-powered-by');
  // The client's address (rate limits, failed authentications) as the trusted proxies report it.
  if (config.http.trustProxy !== undefined) app.set('trust proxy', config.http.trustProxy);
  // Before the Host check, so its 421 carries the headers too.
  app.use(
    securityHeaders({
      docs: '/docs',
      queueBoard: QUEUE_BOARD_PATH,
      hsts: config.http.allowedHosts.length > 0,
    }),
  );
  app.use(
    allowedHostsMiddleware({
      allowedHosts: config.http.allowedHosts,
      open: !authenticator.enabled,
    }),
  );
  app.use(jsonBody(config.http.bodyLimitBytes));
  app.use(app.get(InFlightRequests).middleware);
  const failures = app.get(AuthFailureLimiter);
  if (authenticator.enabled)
    app.use(['/docs', '/docs-json', '/docs-yaml'], bearerAuth(authenticator, failures));
  setupDocs(app);
  // The web page's bundle (React, the AI SDK client): served from the app, no CDN.
  app.useStaticAssets(join(WEB_ROOT, 'assets'), { prefix: '/assets/', maxAge: '1h' });
  const queue = app.get(AgentService).bullQueue;
  const { adminKey } = config.auth;
  // The board shows every tenant's jobs: with API keys it needs the admin key, or it is not served.
  if (queue && (adminKey || !authenticator.enabled)) {
    if (adminKey) app.use(QUEUE_BOARD_PATH, adminKeyAuth(adminKey, failures));
    mountQueueBoard(app, queue);
  }
  // The metrics too: the admin key with API keys, open when the API is.
  const metrics = app.get(AppMetrics);
  if (queue) metrics.watchQueue(queue);
  if (adminKey || !authenticator.enabled) {
    if (adminKey) app.use(METRICS_PATH, adminKeyAuth(adminKey, failures, 'GET /metrics'));
    mountMetrics(app, metrics);
  }
}

/** Bearer auth for the docs, which Express serves outside Nest's guards. */
function bearerAuth(authenticator: ApiKeyAuthenticator, failures: AuthFailureLimiter) {
  return guardedMiddleware(
    (request) => {
      try {
        authenticator.authenticate(request);
        return true;
      } catch {
        return false;
      }
    },
    'Invalid API key',
    failures,
  );
}
