import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AgentService } from 'nest-agent-memory';
import type { AllConfig } from '../config/validate-env.js';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { adminKeyAuth, guardedMiddleware } from './admin/admin-key.middleware.js';
import { AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { mountQueueBoard, QUEUE_BOARD_PATH } from './admin/queue-board.js';
import { WEB_ROOT } from './web/web-assets.js';
import {
  ApiKeyAuthenticator,
  INVALID_API_KEY,
  MISSING_BEARER_TOKEN,
} from './auth/api-key-authenticator.js';
import { setupDocs } from './docs/setup-docs.js';
import { InFlightRequests } from './lifecycle/in-flight-requests.js';
import { jsonBody } from './http-server/json-body.js';
import { fastifyOf, pathMounter, useOnEveryRequest } from './http-server/request-hooks.js';
import {
  fastifyRequestLogging,
  requestLogging,
  resumeRequestLogContext,
} from './logging/request-logging.js';
import { allowedHostsMiddleware } from './http-server/allowed-hosts.js';
import { securityHeaders } from './http-server/security-headers.js';
import { AppMetrics } from './telemetry/app-metrics.js';
import { METRICS_PATH, mountMetrics } from './telemetry/metrics-endpoint.js';

/**
 * What the app needs beyond its modules, shared by `main.ts` and the e2e tests, on Express or
 * Fastify alike: the Host check (DNS rebinding), security headers (helmet), JSON bodies up to the
 * limit (413 from the Content-Length alone, or as soon as a chunked body passes it, and the
 * connection closes unread — on Fastify its adapter's body parser does this), in-flight request
 * counting for graceful shutdown, the OpenAPI docs (`API_DOCS`: public, behind a key, or off), the web page's
 * assets, and (with the Bull queue) the read-only queue board at `/admin/queues` and
 * `GET /metrics` behind `ADMIN_API_KEY`, and request logging on `logger`. Create an Express app with
 * `bodyParser: false`. On Fastify all of it runs as Fastify hooks and routes, not through
 * `@fastify/middie`.
 */
export async function configureApp(
  app: INestApplication,
  config: AllConfig,
  logger: Logger,
): Promise<void> {
  const platform = config.http.adapter;
  const authenticator = app.get(ApiKeyAuthenticator);
  if (platform === 'express') {
    const express = app as NestExpressApplication;
    express.disable('x-powered-by');
    // The client's address (rate limits, failed authentications) as the trusted proxies report it
    // (on Fastify, an option of its adapter).
    if (config.http.trustProxy !== undefined) express.set('trust proxy', config.http.trustProxy);
  }
  const everyRequest = useOnEveryRequest.bind(undefined, app, platform);
  // First, so every answer (a 421, a 413) has its id and its request line. On Express the context
  // is entered again once the body is read (its events run outside it); Fastify reads the body
  // within it.
  if (platform === 'express') app.use(requestLogging(logger, config.logging.requestLines));
  else fastifyRequestLogging(fastifyOf(app), logger, config.logging.requestLines);
  // Before the Host check, so its 421 carries the headers too.
  everyRequest(
    securityHeaders({
      docs: '/docs',
      queueBoard: QUEUE_BOARD_PATH,
      hsts: config.http.allowedHosts.length > 0,
    }),
  );
  everyRequest(
    allowedHostsMiddleware({
      allowedHosts: config.http.allowedHosts,
      open: !authenticator.enabled,
    }),
  );
  if (platform === 'express') {
    app.use(jsonBody(config.http.bodyLimitBytes));
    app.use(resumeRequestLogContext);
  }
  everyRequest(app.get(InFlightRequests).middleware);
  // What the platform serves outside Nest's guards, each behind its auth — all mounted before the
  // docs, the page's assets or the queue board register anything.
  const onPath = pathMounter(app, platform);
  const failures = app.get(AuthFailureLimiter);
  const queue = app.get(AgentService).bullQueue;
  const { adminKey } = config.auth;
  // The board shows every tenant's jobs, the metrics span them: with API keys both need the admin
  // key, or they are not served; open when the API is.
  const adminServed = Boolean(adminKey) || !authenticator.enabled;
  const docs = config.auth.docs;
  if (authenticator.enabled && docs === 'key')
    for (const path of ['/docs', '/docs-json', '/docs-yaml'])
      onPath(path, bearerAuth(authenticator, failures));
  if (adminKey) {
    if (queue) onPath(QUEUE_BOARD_PATH, adminKeyAuth(adminKey, failures));
    onPath(METRICS_PATH, adminKeyAuth(adminKey, failures, 'GET /metrics'));
  }
  if (docs !== 'off') setupDocs(app);
  // The web page's bundle (React, the AI SDK client): served from the app, no CDN.
  const assets = join(WEB_ROOT, 'assets');
  if (platform === 'fastify')
    (app as NestFastifyApplication).useStaticAssets({
      root: assets,
      prefix: '/assets/',
      maxAge: 3_600_000,
      decorateReply: false,
    });
  else
    (app as NestExpressApplication).useStaticAssets(assets, { prefix: '/assets/', maxAge: '1h' });
  if (queue && adminServed) await mountQueueBoard(app, platform, queue);
  const metrics = app.get(AppMetrics);
  if (queue) metrics.watchQueue(queue);
  if (adminServed) mountMetrics(app, platform, metrics);
}

/** Bearer auth for the docs, which the platform serves outside Nest's guards. */
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
    INVALID_API_KEY,
    failures,
    MISSING_BEARER_TOKEN,
  );
}
