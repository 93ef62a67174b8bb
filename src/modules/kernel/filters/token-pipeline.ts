import type { KernelExecutionContext } from '../context/kernel-execution-context.js';
import type {
  KernelChatRequest,
  KernelFilter,
  TokenTransform,
} from '../interfaces/kernel-filter.interface.js';
import type { KernelStreamEvent } from '../interfaces/kernel-invoke.interface.js';
import type { TokenSink } from '../../llm/interfaces/llm.interface.js';

/** What a streamed model call carries through the chat chain. */
export interface ChatScope {
  onToken?: TokenSink;
  /** Releases what token transforms held, once the model call has ended. */
  flush?: () => void;
}

/**
 * The token path of one streamed model call. Tokens flow from the adapter outward: through the
 * innermost filter's transform first. When the model call ends, each transform's `flush` passes what
 * it held through the ones outside it.
 */
export function tokenPipeline(
  filters: readonly KernelFilter[],
  context: KernelExecutionContext<KernelChatRequest, ChatScope>,
  onEvent: (event: KernelStreamEvent) => void,
): ChatScope {
  const transforms = filters
    .map((filter) => filter.createTokenTransform?.(context))
    .filter((transform): transform is TokenTransform => transform !== undefined)
    .reverse();
  if (transforms.length === 0) return { onToken: (text) => onEvent({ type: 'token', text }) };
  const emit = (text: string, from: number): void => {
    let current = text;
    for (let i = from; i < transforms.length && current !== ''; i += 1)
      current = transforms[i]!.push(current);
    if (current !== '') onEvent({ type: 'token', text: current });
  };
  return {
    onToken: (token) => emit(token, 0),
    flush: () => transforms.forEach((transform, i) => emit(transform.flush?.() ?? '', i + 1)),
  };
}
