import type { Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { getChatMemoryStoreToken } from '../chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { createLlmAdapter, isLlmAdapter } from '../llm/create-llm-adapter.js';
import type { LlmOptions } from '../llm/llm-options.js';
import { DeferredChatMemoryStore } from './deferred-chat-memory.store.js';
import type { MemoryProvider } from './interfaces/memory-provider.interface.js';
import type { MemoryProviderModuleOptions } from './memory-provider.options.js';
import { validateMemoryProviderOptions } from './memory-provider-options.validation.js';
import { DefaultMemoryProvider } from './providers/default.memory-provider.js';
import { SummarizingMemoryProvider } from './providers/summarizing.memory-provider.js';
import { TokenBudgetMemoryProvider } from './providers/token-budget.memory-provider.js';

/**
 * Builds the configured provider at bootstrap, on the chosen `ChatMemoryModule` store (taken once
 * the app is built; {@link verifyMemoryProvider} checks it exists at module init).
 */
export async function createMemoryProvider(
  options: MemoryProviderModuleOptions,
  moduleRef: ModuleRef,
): Promise<MemoryProvider> {
  validateMemoryProviderOptions(options);
  if (options?.policy === 'custom') {
    return typeof options.provider === 'function'
      ? moduleRef.create(options.provider as Type<MemoryProvider>)
      : options.provider;
  }
  const store = new DeferredChatMemoryStore(() => resolveStore(moduleRef, options?.store));
  switch (options?.policy ?? 'window') {
    case 'window':
      return new DefaultMemoryProvider(store, (options as { window?: number }).window ?? Infinity);
    case 'token-budget': {
      const { maxTokens, counter, partTokens } = options as {
        maxTokens: number;
        counter?: (text: string) => number;
        partTokens?: { image?: number; file?: number };
      };
      return new TokenBudgetMemoryProvider(store, { maxTokens, counter, partTokens });
    }
    case 'summarizing': {
      const { window, llm, instructions } = options as {
        window: number;
        llm: LlmOptions;
        instructions?: string;
      };
      const adapter = isLlmAdapter(llm)
        ? llm
        : createLlmAdapter(llm, process.env, {
            moduleName: 'MemoryProviderModule',
            option: 'llm',
          });
      await adapter.ready?.();
      return new SummarizingMemoryProvider(store, { window, instructions, llm: adapter });
    }
    default:
      throw new InvalidModuleOptionsError(
        'MemoryProviderModule',
        'policy',
        `must be window, token-budget, summarizing or custom, got ${JSON.stringify((options as { policy?: unknown }).policy)}`,
      );
  }
}

function resolveStore(moduleRef: ModuleRef, name: string | undefined): ChatMemoryStore {
  const token = getChatMemoryStoreToken(name);
  try {
    return moduleRef.get<ChatMemoryStore>(token, { strict: false });
  } catch {
    throw new InvalidModuleOptionsError(
      'MemoryProviderModule',
      'store',
      `no chat memory store "${token}": import ChatMemoryModule.forRoot(${name ? `{ …, name: '${name}' }` : '…'}) in the app`,
    );
  }
}
