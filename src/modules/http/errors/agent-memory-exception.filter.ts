import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
  Logger,
  Optional,
} from '@nestjs/common';
import { LongtermMemoryDisabledError } from '../../longterm/errors/longterm.errors.js';
import { type HttpErrorBody, httpErrorBody } from './http-error-body.js';
import { httpStatusOfError } from './http-status-of-error.js';
import { publicErrorMessage } from './public-error-message.js';
import { type PlatformResponse, answerStarted, sendJson } from '../platform/platform-response.js';

/** Statuses whose errors are the caller's own doing: not worth a log line. */
const SAFE_MESSAGES = new Set<number>([
  HttpStatus.BAD_REQUEST,
  HttpStatus.CONFLICT,
  HttpStatus.PAYLOAD_TOO_LARGE,
]);

/** Token of the filter's options (`AgentMemoryHttpModule` provides them). */
export const AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS = Symbol(
  'AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS',
);

/** How `AgentMemoryExceptionFilter` words what is app-specific. */
export interface AgentMemoryExceptionFilterOptions {
  /**
   * Appended to the 503 of a memory route used while the long-term tier is off, to say how this app
   * turns it on (the example app: `set LONGTERM_MEMORY_URI`).
   */
  longtermDisabledHint?: string;
}

/**
 * Maps every error of an HTTP request to `{ statusCode, error, message }`: Nest's `HttpException`s
 * keep their status (validation 400, 401 of a guard, 413 of the body parser, 429 of a throttler);
 * the library's errors get theirs (400 invalid input, 404, 409 conflict, 413 working memory over its
 * cap, 502/504 model failure/timeout, 503 long-term tier off) with a message fit for a client (a
 * provider's error body, hosts, SQL stay in the log); anything else is a 500 whose details go to
 * the log only. Use it on your own controllers (`@UseFilters`) or globally
 * (`APP_FILTER`, which also covers errors raised before routing, such as an oversized body).
 */
@Catch()
export class AgentMemoryExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('AgentMemoryHttp');

  constructor(
    @Optional()
    @Inject(AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS)
    private readonly options: AgentMemoryExceptionFilterOptions = {},
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<PlatformResponse>();
    const body = this.toBody(exception);
    if (answerStarted(response)) return;
    sendJson(response, body.statusCode, body);
  }

  /** The body (and status) an error maps to. */
  toBody(exception: unknown): HttpErrorBody {
    if (exception instanceof HttpException) return fromHttpException(exception);
    const status = httpStatusOfError(exception);
    if (status !== undefined) {
      const error = exception as Error;
      if (!SAFE_MESSAGES.has(status)) this.logger.warn(`${error.name}: ${error.message}`);
      let message = publicErrorMessage(error);
      if (exception instanceof LongtermMemoryDisabledError && this.options.longtermDisabledHint)
        message += `; ${this.options.longtermDisabledHint}`;
      return httpErrorBody(status, message);
    }
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return httpErrorBody(HttpStatus.INTERNAL_SERVER_ERROR, 'Internal server error');
  }
}

function fromHttpException(exception: HttpException): HttpErrorBody {
  const status = exception.getStatus();
  const payload = exception.getResponse();
  const message =
    typeof payload === 'object' && payload !== null && 'message' in payload
      ? [(payload as { message: unknown }).message].flat().join('; ')
      : exception.message;
  return httpErrorBody(status, message);
}
