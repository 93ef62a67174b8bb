import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppMetrics } from './app-metrics.js';

/** Where the Prometheus metrics are served. */
export const METRICS_PATH = '/metrics';

/**
 * Serves `GET /metrics` in Prometheus's text format, outside Nest's guards (mount any auth before
 * it): the metrics span every tenant, so they are not a tenant's to read.
 */
export function mountMetrics(app: NestExpressApplication, metrics: AppMetrics): void {
  app.use(
    METRICS_PATH,
    (
      request: { method: string },
      response: {
        status(code: number): { end(body?: string): void };
        setHeader(name: string, value: string): void;
        end(body: string): void;
      },
    ) => {
      if (request.method !== 'GET') return response.status(405).end();
      metrics.registry
        .metrics()
        .then((text) => {
          response.setHeader('content-type', metrics.registry.contentType);
          response.end(text);
        })
        .catch(() => response.status(500).end());
    },
  );
}
