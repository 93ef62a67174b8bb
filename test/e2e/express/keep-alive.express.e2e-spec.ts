/**
 * The keep-alive suite again on Express (`HTTP_ADAPTER=express`; the app's default is Fastify): one of
 * the suites that cover what each platform does its own way (bodies and their limits, the server's
 * timeouts, headers, static files, streams, shutdown).
 */
process.env.TEST_HTTP_ADAPTER = 'express';
await import('../keep-alive.e2e-spec.js');
