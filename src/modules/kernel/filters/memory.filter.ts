import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { type Observable, from, mergeMap } from 'rxjs';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import { getKernelChatRequest, replaceKernelRequest } from '../context/kernel-execution-context.js';
import type { KernelFilter } from '../interfaces/kernel-filter.interface.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';

/**
 * The kernel's memory filter (put it first): around each model call of a conversation it stores the
 * round's delta, replaces the messages with the stored history, and stores the reply. Message ids
 * are stamped by the kernel beforehand, so a retry from a filter outside this one re-adds the same
 * ids — a no-op — and one reply is stored. Without a `conversationId` it passes through. Its
 * presence switches the kernel to delta mode.
 */
export class MemoryFilter implements KernelFilter {
  constructor(readonly store: ChatMemoryStore) {}

  intercept(context: ExecutionContext, next: CallHandler<LlmResponse>): Observable<LlmResponse> {
    if (context.getType<string>() !== 'kernel-chat') return next.handle();
    const request = getKernelChatRequest(context);
    const conversationId = request.context.conversationId;
    if (!conversationId) return next.handle();
    return from(this.expand(conversationId, context)).pipe(
      mergeMap(() => next.handle()),
      mergeMap(async (response) => {
        await this.store.add(conversationId, [{ ...response.message, id: request.replyId }]);
        return response;
      }),
    );
  }

  private async expand(conversationId: string, context: ExecutionContext): Promise<void> {
    const request = getKernelChatRequest(context);
    await this.store.add(conversationId, request.messages);
    // A retry of this round after its reply was stored must not show the model that reply.
    const history = (await this.store.get(conversationId)).filter(
      (message) => message.id !== request.replyId,
    );
    replaceKernelRequest(context, { ...request, messages: history });
  }
}

/** Creates the memory filter for a store. */
export function memoryFilter(store: ChatMemoryStore): MemoryFilter {
  return new MemoryFilter(store);
}
