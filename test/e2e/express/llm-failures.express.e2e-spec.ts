/**
 * The llm-failures reliability suite again on Express (`HTTP_ADAPTER=express`; the app's default is
 * Fastify): each platform writes answers and errors, and sees clients leave, its own way.
 */
process.env.TEST_HTTP_ADAPTER = 'express';
await import('../../reliability/llm-failures.e2e-spec.js');
