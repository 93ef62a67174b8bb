import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpConfig } from '../../config/http.config.js';
import { fastifyOf } from '../http-server/request-hooks.js';
import type { AppMetrics } from './app-metrics.js';

/** Where the Prometheus metrics are served. */
export const METRICS_PATH = '/metrics';

/**
 * Serves `GET /metrics` (Prometheus text format) outside Nest's guards, so the app puts its
 * admin-key check in front of it: middleware on Express, a route of its own on Fastify (every
 * method; all but `GET` answer 405 with `Allow: GET`).
 */
export function mountMetrics(
  app: INestApplication,
  platform: HttpConfig['adapter'],
  metrics: AppMetrics,
): void {
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET') {
      response.statusCode = 405;
      response.setHeader('allow', 'GET');
      return void response.end();
    }
    metrics.registry
      .metrics()
      .then((text) => {
        response.setHeader('content-type', metrics.registry.contentType);
        response.end(text);
      })
      .catch(() => {
        response.statusCode = 500;
        response.end();
      });
  };
  if (platform === 'express') return void app.use(METRICS_PATH, serve);
  fastifyOf(app).route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: METRICS_PATH,
    handler: (request, reply) => {
      reply.hijack();
      serve(request.raw, reply.raw);
    },
  });
}
