import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { loadAppConfig } from './config/app.config.js';

/** Starts the example app: `node dist/main.js` (see README for the environment variables). */
async function bootstrap(): Promise<void> {
  const { port, host } = loadAppConfig();
  const app = await NestFactory.create(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.listen(port, host);
  app.get(Logger).log(`Agent memory example app listening on http://${host}:${port}`);
}

await bootstrap();
