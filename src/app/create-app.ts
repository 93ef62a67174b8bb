import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { configureApp } from './configure-app.js';
import { AppLogger, createRootLogger } from './logging/app-logger.js';
import { appSqlTarget } from '../config/sql-target.config.js';
import type { AppMetrics } from './telemetry/app-metrics.js';
import type { Logger } from 'pino';
import type { AllConfig } from '../config/validate-env.js';

/**
 * Builds the example app as `main.ts` serves it — its modules on the HTTP platform `HTTP_ADAPTER`
 * names (Express or Fastify, each hardened alike), the structured logger and everything
 * `configureApp` adds — without listening yet. The benchmarks build it the same way.
 */
export async function createApp(
  config: AllConfig,
  options: { metrics?: AppMetrics; bufferLogs?: boolean; logger?: Logger } = {},
): Promise<INestApplication> {
  // The app's logger from the first line: a start that fails logs in the same format.
  const logger = options.logger ?? createRootLogger(config.logging);
  const module = AppModule.forRoot({ database: appSqlTarget(), metrics: options.metrics });
  // Only the platform in use is loaded (each is a large module graph of its own).
  const adapter =
    config.http.adapter === 'fastify'
      ? (await import('./http-server/hardened-fastify.adapter.js')).hardenedFastifyAdapter(
          config.http,
        )
      : new (await import('./http-server/hardened-express.adapter.js')).HardenedExpressAdapter(
          config.http,
        );
  const app = await NestFactory.create<INestApplication>(module, adapter, {
    // Nest's own report of a failed start goes at debug: with `abortOnError: false` below, the
    // failure is thrown to the caller, which logs it as one fatal line (with its stack when the
    // app does not recognize it) and exits.
    logger: new AppLogger(logger, { bootstrapErrorsAtDebug: true }),
    abortOnError: false,
    bufferLogs: options.bufferLogs ?? false,
    bodyParser: false,
  });
  await configureApp(app, config, logger);
  return app;
}
