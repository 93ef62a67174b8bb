/** Library errors whose messages hold nothing but what the caller sent or the limits it hit. */
const SAFE_AS_IS = new Set([
  'InvalidArgumentError',
  'ValueTooLargeError',
  'WorkingMemoryQuotaError',
  'WorkingMemoryFullError',
  'InvalidMessageError',
  'MaxToolIterationsError',
  'LongtermNoEntityError',
  'LongtermMemoryDisabledError',
  'RunBelongsToAnotherConversationError',
  'WorkingMemoryOverflowError',
  'WorkingMemoryContentionError',
  'MemoryNotActiveError',
  'FormationAnswerError',
  'FormationRefusedError',
  'FormationQueueFullError',
  'LeaseWaitTimeoutError',
  'LeaseLostError',
  'LlmRateLimitError',
  'LlmTimeoutError',
]);

/**
 * What a client may read of an error (`{ name, message }`, as thrown or as a run record keeps it):
 * the library's own messages about the request as they are; for the model provider, the database or
 * anything unexpected, a fixed text — their messages can carry a provider's error body, a host, a
 * path, SQL or another tenant's stored id, which go to the log only.
 */
export function publicErrorMessage(error: { name: string; message: string }): string {
  if (SAFE_AS_IS.has(error.name)) return error.message;
  switch (error.name) {
    case 'LlmResponseError': {
      const status = /HTTP (\d{3})/.exec(error.message)?.[1];
      return status
        ? `The model provider answered HTTP ${status}`
        : "The model provider's answer could not be read";
    }
    case 'LlmConnectionError':
      return 'Could not reach the model provider';
    case 'LlmAbortedError':
      return 'The model call was aborted';
    case 'ConversationVersionConflictError':
      return 'Another turn of this conversation was committed first; retry the turn';
    case 'LongtermFlushError':
      return 'Writing long-term memory after the turn failed; retry the turn';
    default:
      return 'Internal error';
  }
}
