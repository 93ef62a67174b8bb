import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpConfig } from '../../config/http.config.js';

/** Express-style middleware on the raw Node request and response (what helmet and ours are). */
export type RawMiddleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * Runs middleware on every request, in the order added. On Express, `app.use`. On Fastify, an
 * `onRequest` hook on the raw request and response — not `app.use`, which Nest's Fastify adapter
 * routes through `@fastify/middie`, whose hook copies a dozen request properties (the client
 * address among them) on every request once any middleware is mounted.
 */
export function useOnEveryRequest(
  app: INestApplication,
  platform: HttpConfig['adapter'],
  middleware: RawMiddleware,
): void {
  if (platform === 'express') return void app.use(middleware);
  fastifyOf(app).addHook('onRequest', (request, reply, done) =>
    middleware(request.raw, reply.raw, (error) => done(error as Error | undefined)),
  );
}

/** Mounts middleware on the requests for a path and below (`/docs`: `/docs`, `/docs/x`, not `/docsx`). */
export type PathMounter = (path: string, middleware: RawMiddleware) => void;

/**
 * Middleware for paths, in the order mounted. On Express, `app.use(path, …)`. On Fastify, one
 * `onRequest` hook, added now — before any plugin (the docs, the queue board, static files) is
 * registered, since a Fastify plugin only inherits the hooks added before it — that asks the router
 * which route the request matched (so its own normalisation of case and slashes decides, and a
 * request no route serves passes on to the 404) and runs the middleware mounted on that route's
 * path, with the client address as `request.ip`, as the auth middleware expects.
 */
export function pathMounter(app: INestApplication, platform: HttpConfig['adapter']): PathMounter {
  if (platform === 'express') return (path, middleware) => void app.use(path, middleware);
  const mounted: Array<{ path: string; middleware: RawMiddleware }> = [];
  fastifyOf(app).addHook('onRequest', (request, reply, done) => {
    if (mounted.length === 0) return done();
    const route = request.routeOptions.url;
    const chain =
      route === undefined
        ? []
        : mounted.filter(({ path }) => route === path || route.startsWith(`${path}/`));
    if (chain.length === 0) return done();
    (request.raw as IncomingMessage & { ip?: string }).ip = request.ip;
    let index = 0;
    const next = (error?: unknown): void => {
      const entry = chain[index++];
      if (error !== undefined || !entry) return done(error as Error | undefined);
      entry.middleware(request.raw, reply.raw, next);
    };
    next();
  });
  return (path, middleware) => void mounted.push({ path, middleware });
}

/** The Fastify instance under a Nest app on Fastify. */
export function fastifyOf(app: INestApplication): FastifyInstance {
  return app.getHttpAdapter().getInstance() as FastifyInstance;
}
