import 'reflect-metadata';
import { MissingDriverError } from 'nest-agent-memory';
import { assertDriversInstalled } from './required-drivers.js';
import { ConfigValidationError } from '../config/config-validation.error.js';
import { loadAllConfig } from '../config/validate-env.js';

/**
 * Starts the example app: `node dist/main.js` (see README for the environment variables). The
 * configuration and the packages it needs are checked before the app's modules load, so every
 * missing package is named at once.
 */
async function bootstrap(): Promise<void> {
  const config = loadAllConfig();
  assertDriversInstalled(config);
  const { startApp } = await import('./start-app.js');
  await startApp(config);
}

try {
  await bootstrap();
} catch (error) {
  if (error instanceof ConfigValidationError || error instanceof MissingDriverError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
