import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { ConversationVersionConflictError } from '../../chat-memory/errors/conversation-version-conflict.error.js';
import { KernelAbortedError, MaxToolIterationsError } from '../../kernel/errors/kernel.errors.js';
import { LlmError } from '../../llm/llm-errors.js';

/** Errors that another attempt cannot fix: not retried. */
export function isFinalRunError(error: unknown): boolean {
  if (error instanceof LlmError) return !error.retryable;
  return (
    error instanceof ConversationVersionConflictError ||
    error instanceof InvalidArgumentError ||
    error instanceof MaxToolIterationsError ||
    error instanceof KernelAbortedError
  );
}
