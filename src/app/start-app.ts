import { type INestApplication, Logger } from '@nestjs/common';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { createApp } from './create-app.js';
import { InFlightRequests } from './lifecycle/in-flight-requests.js';
import { AppMetrics } from './telemetry/app-metrics.js';
import { startTracing } from './telemetry/start-tracing.js';

import type { AllConfig } from '../config/validate-env.js';
import type { Logger as PinoLogger } from 'pino';

/** Starts the example app on a loaded configuration (see README for the environment variables). */
export async function startApp(config: AllConfig, rootLogger?: PinoLogger): Promise<void> {
  // Before Nest: spans of every module feed the metrics (and OTLP when configured).
  const metrics = new AppMetrics();
  const tracing = startTracing(metrics, config.telemetry.otlpEndpoint);
  const app = await createApp(config, { metrics, logger: rootLogger });
  const logger = new Logger('App');
  const authenticator = app.get(ApiKeyAuthenticator);
  if (config.llm.echoByDefault)
    logger.warn(
      'No LLM configured: the agent answers with the offline echo model. Set OPENAI_BASE_URL / OPENAI_API_KEY (or LLM_PROVIDER) for a real one.',
    );
  if (!authenticator.enabled)
    logger.warn('API_KEYS is not set: the API is open to anyone who can reach it.');
  await app.listen(config.app.port, config.app.host);
  logger.log(
    `Agent memory example app listening on http://${config.app.host}:${config.app.port} (${config.http.adapter})`,
  );
  handleShutdown(app, config.http.shutdownTimeoutMs, () => tracing.shutdown());
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests (turns) finish within
 * `SHUTDOWN_TIMEOUT_MS`, then close queues and connections and exit. A second signal, or the bound
 * passing, exits at once (code 1).
 */
function handleShutdown(
  app: INestApplication,
  timeoutMs: number,
  flushTelemetry: () => Promise<void>,
): void {
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    const logger = new Logger('App');
    if (stopping) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.log(`${signal}: finishing in-flight requests (up to ${timeoutMs} ms)`);
    const force = setTimeout(() => {
      logger.error('Shutdown bound passed: exiting');
      process.exit(1);
    }, timeoutMs + 5_000);
    force.unref();
    const server = app.getHttpServer() as import('node:http').Server;
    // A request that arrives from here on (on a connection kept alive from before) is answered with
    // `Connection: close`: kept alive, the connection would stay open idle for the keep-alive
    // timeout (72 s by default) after its answer and hold `app.close()` past the bound.
    server.prependListener('request', (_request, response) => {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    });
    server.close();
    server.closeIdleConnections?.();
    const drained = await app.get(InFlightRequests).drained(timeoutMs);
    if (!drained) logger.warn('Some requests were still running at the shutdown bound');
    // The connections whose answers ended meanwhile (kept alive, now idle).
    server.closeIdleConnections?.();
    await app.close();
    // The spans of the last turns, to the OTLP endpoint if one is set.
    await flushTelemetry().catch(() => undefined);
    process.exit(drained ? 0 : 1);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
