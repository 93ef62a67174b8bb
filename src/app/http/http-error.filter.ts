import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Response } from 'express';
import { ConversationVersionConflictError, InvalidArgumentError } from 'nest-agent-memory';

/** The JSON body of every error response of the example app. */
export interface HttpErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

/**
 * The one place where the library's domain errors become HTTP statuses: invalid input → 400, a
 * version conflict → 409; Nest's own HTTP exceptions keep theirs; anything else is a logged 500
 * whose details stay in the log.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const body = this.toBody(exception);
    response.status(body.statusCode).json(body);
  }

  private toBody(exception: unknown): HttpErrorBody {
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const payload = exception.getResponse();
      const message =
        typeof payload === 'object' && payload !== null && 'message' in payload
          ? [(payload as { message: unknown }).message].flat().join('; ')
          : exception.message;
      return { statusCode: status, error: statusName(status), message };
    }
    if (exception instanceof InvalidArgumentError)
      return body(HttpStatus.BAD_REQUEST, exception.message);
    if (exception instanceof ConversationVersionConflictError)
      return body(HttpStatus.CONFLICT, exception.message);
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return body(HttpStatus.INTERNAL_SERVER_ERROR, 'Internal server error');
  }
}

function body(statusCode: number, message: string): HttpErrorBody {
  return { statusCode, error: statusName(statusCode), message };
}

function statusName(status: number): string {
  const name = HttpStatus[status];
  return name
    ? name
        .split('_')
        .map((word) => word[0] + word.slice(1).toLowerCase())
        .join(' ')
    : 'Error';
}
