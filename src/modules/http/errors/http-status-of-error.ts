import { HttpStatus } from '@nestjs/common';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { ValueTooLargeError } from '../../../common/errors/value-too-large.error.js';
import { InvalidMessageError } from '../../../common/messages/invalid-message.error.js';
import { ConversationVersionConflictError } from '../../chat-memory/errors/conversation-version-conflict.error.js';
import {
  LongtermFlushError,
  LongtermMemoryDisabledError,
  LongtermNoEntityError,
} from '../../longterm/errors/longterm.errors.js';
import {
  WorkingMemoryContentionError,
  WorkingMemoryFullError,
  WorkingMemoryOverflowError,
  WorkingMemoryQuotaError,
} from '../../working-memory/errors/working-memory.errors.js';
import { LlmError, LlmTimeoutError } from '../../llm/llm-errors.js';
import { MemoryNotActiveError } from '../../formation/memory-curation.js';
import { LeaseLostError, LeaseWaitTimeoutError } from '../../formation/entity-leases.js';
import { MaxToolIterationsError } from '../../kernel/errors/kernel.errors.js';
import { RunBelongsToAnotherConversationError } from '../../agent/errors/agent.errors.js';

/** Which library errors map to which status; the first `instanceof` match wins. */
/** An error class, abstract or with a protected constructor included. */
type ErrorClass = { prototype: Error };

const STATUS_BY_ERROR: ReadonlyArray<[ErrorClass, HttpStatus]> = [
  [ValueTooLargeError, HttpStatus.PAYLOAD_TOO_LARGE],
  [InvalidArgumentError, HttpStatus.BAD_REQUEST],
  [InvalidMessageError, HttpStatus.BAD_REQUEST],
  [LongtermNoEntityError, HttpStatus.BAD_REQUEST],
  [ConversationVersionConflictError, HttpStatus.CONFLICT],
  [RunBelongsToAnotherConversationError, HttpStatus.CONFLICT],
  [WorkingMemoryContentionError, HttpStatus.CONFLICT],
  [MemoryNotActiveError, HttpStatus.CONFLICT],
  [WorkingMemoryOverflowError, HttpStatus.PAYLOAD_TOO_LARGE],
  [WorkingMemoryQuotaError, HttpStatus.INSUFFICIENT_STORAGE],
  [WorkingMemoryFullError, HttpStatus.INSUFFICIENT_STORAGE],
  [LongtermMemoryDisabledError, HttpStatus.SERVICE_UNAVAILABLE],
  [LongtermFlushError, HttpStatus.SERVICE_UNAVAILABLE],
  [LeaseWaitTimeoutError, HttpStatus.SERVICE_UNAVAILABLE],
  [LeaseLostError, HttpStatus.SERVICE_UNAVAILABLE],
  [LlmTimeoutError, HttpStatus.GATEWAY_TIMEOUT],
  [LlmError, HttpStatus.BAD_GATEWAY],
  [MaxToolIterationsError, HttpStatus.BAD_GATEWAY],
];

/**
 * The HTTP status of a library error: 400 invalid input, 409 a conflict, 413 a value over its
 * per-write limit or a working-memory write over its cap, 507 a tenant's working-memory quota or
 * the process's capacity reached, 503 the long-term tier off or failing (or an entity's formation lease held elsewhere too long), 502/504 the model failing or timing out;
 * `undefined` for anything else (an unexpected error: 500).
 */
export function httpStatusOfError(error: unknown): HttpStatus | undefined {
  return STATUS_BY_ERROR.find(([type]) => error instanceof (type as typeof Error))?.[1];
}
