import type { Type } from '@nestjs/common';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { LlmOptions } from '../llm/llm-options.js';
import type { MemoryProvider } from './interfaces/memory-provider.interface.js';
import type { TokenCounter } from './providers/token-budget.memory-provider.js';

/** Which chat store a built-in policy reads and writes: the default one, or a named one. */
interface StoreChoice {
  /** The `name` of a `ChatMemoryModule` store (default: the unnamed `CHAT_MEMORY_STORE`). */
  store?: string;
}

/** `DefaultMemoryProvider`: the safe window (default `Infinity`). */
export interface WindowPolicyOptions extends StoreChoice {
  policy?: 'window';
  window?: number;
}

/** `TokenBudgetMemoryProvider`. */
export interface TokenBudgetPolicyOptions extends StoreChoice {
  policy: 'token-budget';
  maxTokens: number;
  counter?: TokenCounter;
  /** The cost of an image and a file part (see `TokenBudgetOptions.partTokens`). */
  partTokens?: { image?: number; file?: number };
}

/** `SummarizingMemoryProvider`. */
export interface SummarizingPolicyOptions extends StoreChoice {
  policy: 'summarizing';
  window: number;
  llm: LlmOptions | LlmAdapter;
  instructions?: string;
}

/** Your own provider: a class instantiated with DI, or an instance. */
export interface CustomPolicyOptions {
  policy: 'custom';
  provider: Type<MemoryProvider> | MemoryProvider;
}

/** Options of `MemoryProviderModule.forRoot`, discriminated by `policy`. */
export type MemoryProviderModuleOptions =
  WindowPolicyOptions | TokenBudgetPolicyOptions | SummarizingPolicyOptions | CustomPolicyOptions;

/** Module extras, next to the options. */
export interface MemoryProviderModuleExtras {
  /** Registers a named provider, injected with `@InjectMemoryProvider(name)`. */
  name?: string;
  /** Make the provider injectable everywhere (default `true`). */
  isGlobal?: boolean;
}
