import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/** The request's headers, as both platforms give them. */
interface RequestWithHeaders {
  headers: Record<string, string | string[] | undefined>;
}

/** Whether a content type is JSON (`application/json` or `…+json`, parameters aside). */
export function isJsonContentType(contentType: string | undefined): boolean {
  const type = contentType?.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type?.endsWith('+json') ?? false);
}

/**
 * Refuses, with 415 naming `application/json`, a request to a route that takes a body (`@Body()`)
 * whose body is not declared JSON — `text/plain`, a form, or no `Content-Type` at all — before the
 * body's validation could answer as if a JSON body had missed its fields. What each route's
 * handler takes is read once from its metadata and remembered.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  private readonly takesBody = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    if (!this.routeTakesBody(context)) return true;
    const request = context.switchToHttp().getRequest<RequestWithHeaders>();
    const contentType = [request.headers['content-type']].flat()[0];
    if (isJsonContentType(contentType)) return true;
    throw new UnsupportedMediaTypeException(
      `the body must be JSON (Content-Type: application/json); got ${contentType ? `"${contentType}"` : 'no Content-Type'}`,
    );
  }

  private routeTakesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.takesBody.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ??
        {}) as Record<string, unknown>;
      known = Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.BODY}:`));
      this.takesBody.set(handler, known);
    }
    return known;
  }
}
