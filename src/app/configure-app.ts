import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AllConfig } from '../config/validate-env.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { setupDocs } from './docs/setup-docs.js';
import { InFlightRequests } from './lifecycle/in-flight-requests.js';

/**
 * What the app needs beyond its modules, shared by `main.ts` and the e2e tests: the body limit
 * (413 from the Content-Length alone, before the body is read), in-flight request counting for
 * graceful shutdown, and the OpenAPI docs behind the same auth as the API. Create the app with
 * `bodyParser: false`.
 */
export function configureApp(app: NestExpressApplication, config: AllConfig): void {
  app.useBodyParser('json', { limit: config.http.bodyLimitBytes });
  app.use(app.get(InFlightRequests).middleware);
  app.use(['/docs', '/docs-json'], docsAuth(app.get(ApiKeyAuthenticator)));
  setupDocs(app);
}

/** Bearer auth for the docs, which Express serves outside Nest's guards. */
function docsAuth(authenticator: ApiKeyAuthenticator) {
  return (
    request: Parameters<ApiKeyAuthenticator['authenticate']>[0],
    response: { status(code: number): { json(body: unknown): void } },
    next: () => void,
  ): void => {
    try {
      authenticator.authenticate(request);
      next();
    } catch {
      response
        .status(401)
        .json({ statusCode: 401, error: 'Unauthorized', message: 'Invalid API key' });
    }
  };
}
