import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import { getKernelChatRequest, replaceKernelRequest } from '../context/kernel-execution-context.js';
import type { KernelFilter } from '../interfaces/kernel-filter.interface.js';
import { MEMORY_CONTEXT } from '../../../common/messages/memory-context.js';

/**
 * The innermost filter the kernel adds itself: after the memory filter expanded the history, it
 * prepends the invoke's system prompts to what the model sees, and puts its memory context (data
 * such as recalled memory) as user-role messages right before the last user message, so that text
 * users wrote never gets a system message's standing. Neither is ever stored.
 */
export class SystemPromptFilter implements KernelFilter {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() === 'kernel-chat') {
      const request = getKernelChatRequest(context);
      const data = request.memoryContext ?? [];
      if (request.systemPrompts.length > 0 || data.length > 0) {
        replaceKernelRequest(context, {
          ...request,
          messages: [
            ...request.systemPrompts.map((content) => ({ role: 'system' as const, content })),
            ...withContext(request.messages, data),
          ],
        });
      }
    }
    return next.handle();
  }
}

/** `messages` with the context messages right before the last user message (else at the start). */
function withContext(messages: ChatMessage[], data: string[]): ChatMessage[] {
  if (data.length === 0) return messages;
  const context = data.map((content): ChatMessage => ({
    role: 'user',
    content,
    metadata: { [MEMORY_CONTEXT]: true },
  }));
  let at = messages.findLastIndex((message) => message.role === 'user');
  if (at < 0) at = messages.findIndex((message) => message.role !== 'system');
  if (at < 0) at = messages.length;
  return [...messages.slice(0, at), ...context, ...messages.slice(at)];
}
