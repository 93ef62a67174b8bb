import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import { InvalidMessageError } from '../../common/messages/invalid-message.error.js';
import { validateMessages } from '../../common/messages/message-validation.js';
import type { AgentRunInput } from './interfaces/agent-run.interface.js';

/**
 * The user message a turn starts with: text, content parts, or a user `ChatMessage`, validated as
 * the store will, with the run's first id (`runId:0`). The same for a run now and a queued run.
 */
export function turnUserMessage(message: AgentRunInput['message'], runId: string): ChatMessage {
  // A body without a message (`{}` posted to a controller that passes `body.message` on).
  if (typeof message !== 'string' && (typeof message !== 'object' || message === null))
    throw new InvalidArgumentError(
      'message',
      `required (a text, an array of parts, or a user message { role: 'user', content }), got ${message === null ? 'null' : typeof message}`,
    );
  const candidate = userMessage(message);
  if (candidate.role !== 'user')
    throw new InvalidArgumentError(
      'message.role',
      `must be "user", got ${JSON.stringify(candidate.role)}`,
    );
  const { content } = candidate;
  if (!(typeof content === 'string' ? content.length > 0 : Array.isArray(content)))
    throw new InvalidArgumentError(
      'message',
      'must be a non-empty text or a non-empty array of parts',
    );
  const stamped = { ...candidate, id: `${runId}:0` };
  try {
    validateMessages([stamped]);
  } catch (error) {
    // Named as the caller gave it: `message.content[1].data`, not `messages[0]…`.
    if (error instanceof InvalidMessageError)
      throw new InvalidMessageError(
        error.argument.replace(/^messages\[0\]/, 'message'),
        error.problem,
      );
    throw error;
  }
  return stamped;
}

/** A turn's message as a user `ChatMessage`: text and parts become its content. */
export function userMessage(message: AgentRunInput['message']): ChatMessage {
  if (typeof message === 'string' || Array.isArray(message))
    return { role: 'user', content: message };
  return { ...message };
}
