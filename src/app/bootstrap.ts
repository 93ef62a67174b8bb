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
  const [{ startApp }, { createRootLogger }, { exitOnStartupFailure }] = await Promise.all([
    import('./start-app.js'),
    import('./logging/app-logger.js'),
    import('./startup-failure.js'),
  ]);
  const logger = createRootLogger(config.logging);
  try {
    await startApp(config, logger);
  } catch (error) {
    exitOnStartupFailure(logger, error, config.app.port);
  }
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
