import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from '../../src/app.module.js';
import type { Env } from '../../src/config/env.js';

/** The example app listening on a loopback port. */
export interface RunningApp {
  readonly app: INestApplication;
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * Boots the real example app (`AppModule`, as `main.ts` does) with the given environment variables
 * on 127.0.0.1 and an ephemeral port. The variables are set only while the app's config loads.
 */
export async function startApp(env: Env): Promise<RunningApp> {
  const saved = { ...process.env };
  Object.assign(process.env, { LOG_LEVEL: 'silent', ...env });
  let app: INestApplication;
  try {
    app = await NestFactory.create(AppModule, { bufferLogs: true, abortOnError: false });
    app.useLogger(app.get(Logger));
    app.enableShutdownHooks();
    await app.listen(0, '127.0.0.1');
  } finally {
    process.env = saved;
  }
  const address = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}
