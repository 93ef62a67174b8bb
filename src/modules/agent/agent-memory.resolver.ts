import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import { DefaultMemoryProvider } from '../memory-provider/providers/default.memory-provider.js';
import { TokenBudgetMemoryProvider } from '../memory-provider/providers/token-budget.memory-provider.js';
import { DeferredChatMemoryStore } from '../memory-provider/deferred-chat-memory.store.js';
import {
  type ChatStoreBacking,
  backingOf,
} from '../chat-memory/interfaces/chat-store-backing.interface.js';
import { isMemoryProvider } from './agent-options.validation.js';
import type { AgentMemoryOption } from './agent.options.js';

/**
 * The memory provider of the agent's memory option (validated and normalized beforehand);
 * `defaultStore` gives the app's shared chat store (or the agents' process-memory fallback).
 */
export function resolveAgentMemory(
  option: AgentMemoryOption | undefined,
  defaultStore: () => ChatMemoryStore,
): MemoryProvider | undefined {
  if (option === false || option === 'none') return undefined;
  if (option === undefined || option === 'default')
    return new DefaultMemoryProvider(defaultStore());
  if (isMemoryProvider(option)) return option as MemoryProvider;
  const { store, window, maxTokens } = option as {
    store?: ChatMemoryStore;
    window?: number;
    maxTokens?: number;
  };
  if (maxTokens !== undefined)
    return new TokenBudgetMemoryProvider(store ?? defaultStore(), { maxTokens });
  return new DefaultMemoryProvider(store ?? defaultStore(), window ?? Infinity);
}

/** Where the provider's chat store keeps its data, when it is a built-in store. */
export function providerBacking(
  provider: MemoryProvider | undefined,
): ChatStoreBacking | undefined {
  let store = (provider as { store?: unknown } | undefined)?.store;
  if (store instanceof DeferredChatMemoryStore) store = store.resolveNow();
  return backingOf(store);
}
