import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { getKernelChatRequest, replaceKernelRequest } from '../context/kernel-execution-context.js';
import type { KernelFilter } from '../interfaces/kernel-filter.interface.js';

/**
 * The innermost filter the kernel adds itself: it prepends the invoke's system prompts to what the
 * model sees, after the memory filter expanded the history, so they are never stored.
 */
export class SystemPromptFilter implements KernelFilter {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() === 'kernel-chat') {
      const request = getKernelChatRequest(context);
      if (request.systemPrompts.length > 0) {
        replaceKernelRequest(context, {
          ...request,
          messages: [
            ...request.systemPrompts.map((content) => ({ role: 'system' as const, content })),
            ...request.messages,
          ],
        });
      }
    }
    return next.handle();
  }
}
