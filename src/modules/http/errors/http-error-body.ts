import { HttpStatus } from '@nestjs/common';

/** The JSON body of every error response: `{ statusCode, error, message }`. */
export interface HttpErrorBody {
  statusCode: number;
  /** The status's reason phrase (`Bad Request`, `Conflict`, …). */
  error: string;
  message: string;
}

/** An error body for `statusCode`, its reason phrase derived from the status. */
export function httpErrorBody(statusCode: number, message: string): HttpErrorBody {
  return { statusCode, error: reasonPhrase(statusCode), message };
}

function reasonPhrase(status: number): string {
  const name = HttpStatus[status];
  if (!name) return 'Error';
  if (status === HttpStatus.PAYLOAD_TOO_LARGE) return 'Payload Too Large';
  return name
    .split('_')
    .map((word) => word[0] + word.slice(1).toLowerCase())
    .join(' ');
}
