import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import { validateMessages } from '../../common/messages/message-validation.js';
import type { AgentRunInput } from './interfaces/agent-run.interface.js';

/**
 * The user message a turn starts with: text or a user `ChatMessage`, validated as the store will,
 * with the run's first id (`runId:0`). The same for a run now and a queued run.
 */
export function turnUserMessage(message: AgentRunInput['message'], runId: string): ChatMessage {
  const candidate: ChatMessage =
    typeof message === 'string' ? { role: 'user', content: message } : { ...message };
  if (candidate.role !== 'user')
    throw new InvalidArgumentError(
      'message.role',
      `must be "user", got ${JSON.stringify(candidate.role)}`,
    );
  if (typeof candidate.content !== 'string' || candidate.content.length === 0)
    throw new InvalidArgumentError('message', 'must be a non-empty text');
  const stamped = { ...candidate, id: `${runId}:0` };
  validateMessages([stamped]);
  return stamped;
}
