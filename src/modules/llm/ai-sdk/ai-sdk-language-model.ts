/**
 * An AI SDK language model: what `openai('gpt-4o')`, `anthropic('claude-sonnet-4-5')`,
 * `createOpenAICompatible(…)('llama3')` or any other `@ai-sdk/*` provider returns — the provider
 * specification `v2` (AI SDK 5), `v3` (AI SDK 6) or `v4` (AI SDK 7). Typed loosely on purpose, so
 * a model of any of those versions is accepted without this package depending on `ai`; it is
 * checked at bootstrap.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  /** The provider's one-shot call (its options and result are read loosely by the adapter). */
  doGenerate(options: never): PromiseLike<unknown>;
  /** The provider's streaming call (its options and parts are read loosely by the adapter). */
  doStream(options: never): PromiseLike<unknown>;
}

/** The provider specifications the adapter speaks. */
export const SUPPORTED_SPECIFICATIONS = ['v2', 'v3', 'v4'] as const;

/** A supported specification version. */
export type SpecificationVersion = (typeof SUPPORTED_SPECIFICATIONS)[number];

/** True for an object that looks like an AI SDK language model of a supported version. */
export function isAiSdkLanguageModel(value: unknown): value is AiSdkLanguageModel {
  const model = value as Partial<AiSdkLanguageModel> | null | undefined;
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.doGenerate === 'function' &&
    typeof model.doStream === 'function' &&
    typeof model.specificationVersion === 'string'
  );
}

/** A part of a model's answer, as every supported version shapes it (read loosely). */
export interface ModelOutputPart {
  type: string;
  text?: string;
  delta?: string;
  id?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  providerMetadata?: Record<string, Record<string, unknown>>;
  providerExecuted?: boolean;
  usage?: unknown;
  finishReason?: unknown;
  error?: unknown;
}

/** What `doGenerate` resolves with (read loosely). */
export interface ModelGenerateResult {
  content?: ModelOutputPart[];
  usage?: unknown;
  finishReason?: unknown;
}

/** What `doStream` resolves with. */
export interface ModelStreamResult {
  stream: ReadableStream<ModelOutputPart>;
}

/** The call options the adapter sends (a subset every supported version accepts). */
export interface ModelCallOptions {
  prompt: unknown[];
  tools?: unknown[];
  toolChoice?: unknown;
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
  providerOptions?: Record<string, Record<string, unknown>>;
  includeRawChunks?: boolean;
}

/** The model's two calls, typed for the adapter's own use. */
export interface CallableModel {
  readonly specificationVersion: SpecificationVersion;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: ModelCallOptions): PromiseLike<ModelGenerateResult>;
  doStream(options: ModelCallOptions): PromiseLike<ModelStreamResult>;
}
