/**
 * nest-agent-memory: durable, policy-driven memory for LLM agents, as NestJS modules.
 *
 * This file is the package's public API, and every name in it is semver surface: modules, services,
 * tokens and their `Inject…`/`get…Token` helpers, option types, ports and their record types,
 * errors, the built-in backends and adapters a user may construct, and the filters, compactors and
 * providers meant for users. Nothing else (a test pins the list). Inside the package, import by
 * path.
 */

// Errors shared by every module
export { AgentMemoryError } from './common/errors/agent-memory.error.js';
export { InvalidArgumentError } from './common/errors/invalid-argument.error.js';
export { ValueTooLargeError } from './common/errors/value-too-large.error.js';
export { InvalidModuleOptionsError } from './common/errors/invalid-module-options.error.js';
export { MigrationsNotRunError } from './common/errors/migrations-not-run.error.js';
export { MissingDriverError } from './common/errors/missing-driver.error.js';
export { UnsupportedDatabaseError } from './common/errors/unsupported-database.error.js';

// Connections: health, and the SQL schema for apps that manage migrations themselves
export { AgentMemoryHealthService } from './modules/connections/agent-memory-health.service.js';
export type { ConnectionHealth } from './modules/connections/connection-registry.js';
export type { SqlDialect } from './modules/connections/sql/sql-target.js';
export type {
  DataSourceOption,
  DataSourceToken,
} from './modules/connections/sql/data-source-option.js';
export type { RedisBackendOptions } from './modules/connections/redis/redis-backend.options.js';
export {
  type IoRedisModule,
  type RedisClient,
  createRedisClient,
} from './modules/connections/redis/redis-client.js';
export { logRedisErrors } from './modules/connections/redis/redis-error-log.js';
export {
  type RedisClusterTarget,
  REDIS_CLUSTER_SCHEMES,
  isRedisClusterUrl,
  parseRedisClusterUrl,
} from './modules/connections/redis/redis-cluster-url.js';
export { sqlSocketOptions, storeUriProblem } from './modules/connections/store-uri.js';
export { MIGRATIONS_TABLE } from './modules/connections/migrations/migration-definition.js';
export type { TypeormMigrationClass } from './modules/connections/migrations/typeorm-migrations.js';
export { agentMemoryEntitySchemas, agentMemoryMigrations } from './package-schema.js';

// Conversation memory: storage layer
export { ChatMemoryModule } from './modules/chat-memory/chat-memory.module.js';
export {
  CHAT_MEMORY_STORE,
  getChatMemoryStoreToken,
} from './modules/chat-memory/chat-memory.constants.js';
export { InjectChatMemoryStore } from './modules/chat-memory/chat-memory.decorators.js';
export type {
  ChatMemoryBackend,
  ChatMemoryModuleExtras,
  ChatMemoryModuleOptions,
  CustomBackendOptions,
  MemoryBackendOptions,
  RedisClientBackendOptions,
  RedisUrlBackendOptions,
  SqlBackendOptions,
  SqlDataSourceBackendOptions,
  SqliteBackendOptions,
  SqlUrlBackendOptions,
  UriBackendOptions,
} from './modules/chat-memory/chat-memory.options.js';
export type {
  AddMessagesOptions,
  AddMessagesResult,
  ChatMemoryStore,
  ChatPage,
  ChatPageOptions,
} from './modules/chat-memory/interfaces/chat-memory-store.interface.js';
export {
  CHAT_ROLES,
  type ChatMessage,
  type ChatRole,
  type StoredChatMessage,
  type ToolCall,
} from './common/messages/chat-message.interface.js';
export {
  MAX_CONTENT_PARTS,
  MAX_INLINE_PART_BYTES,
  compactContent,
  contentText,
  type ContentPart,
  type FilePart,
  type ImagePart,
  type ReasoningPart,
  type TextPart,
} from './common/messages/content-parts.js';
export { ConversationVersionConflictError } from './modules/chat-memory/errors/conversation-version-conflict.error.js';
export { InvalidMessageError } from './common/messages/invalid-message.error.js';
export { MEMORY_CONTEXT, isMemoryContext } from './common/messages/memory-context.js';
export { InMemoryChatMemoryStore } from './modules/chat-memory/backends/in-memory.chat-memory.store.js';
export { PostgresChatMemoryStore } from './modules/chat-memory/backends/postgres.chat-memory.store.js';
export { MysqlChatMemoryStore } from './modules/chat-memory/backends/mysql.chat-memory.store.js';
export { SqliteChatMemoryStore } from './modules/chat-memory/backends/sqlite.chat-memory.store.js';
export { RedisChatMemoryStore } from './modules/chat-memory/backends/redis.chat-memory.store.js';

// Kernel: filters, tools, models
export { KernelModule } from './modules/kernel/kernel.module.js';
export { KernelService } from './modules/kernel/kernel.service.js';
export type { KernelModuleExtras, KernelModuleOptions } from './modules/kernel/kernel.options.js';
export { DEFAULT_MAX_TOOL_ITERATIONS } from './modules/kernel/kernel-engine.js';
export {
  type KernelPhase,
  getKernelChatRequest,
  getKernelToolRequest,
  replaceKernelRequest,
} from './modules/kernel/context/kernel-execution-context.js';
export type {
  KernelChatRequest,
  KernelContext,
  KernelFilter,
  KernelToolRequest,
  KernelToolResult,
  TokenTransform,
} from './modules/kernel/interfaces/kernel-filter.interface.js';
export type {
  InvokeOptions,
  InvokeResult,
  KernelStreamEvent,
  ToolResultEvent,
} from './modules/kernel/interfaces/kernel-invoke.interface.js';
export type {
  KernelToolDefinition,
  KernelToolOptions,
  ToolContext,
  ToolHandler,
} from './modules/kernel/interfaces/kernel-tool.interface.js';
export type {
  LlmAdapter,
  LlmInfo,
  LlmRequest,
  LlmResponse,
  TokenSink,
  ToolChoice,
  ToolSpec,
  Usage,
} from './modules/llm/interfaces/llm.interface.js';
export { memoryFilter } from './modules/kernel/filters/memory.filter.js';
export {
  OpenTelemetryFilter,
  type OpenTelemetryFilterOptions,
} from './modules/kernel/filters/opentelemetry.filter.js';
export { KernelTool } from './modules/kernel/tools/kernel-tool.decorator.js';
export {
  DuplicateToolError,
  InvalidToolError,
  KernelAbortedError,
  MaxToolIterationsError,
  UnknownToolError,
} from './modules/kernel/errors/kernel.errors.js';
export {
  LlmAbortedError,
  LlmConnectionError,
  LlmError,
  LlmRateLimitError,
  LlmResponseError,
  LlmTimeoutError,
  LlmUnsupportedContentError,
} from './modules/llm/llm-errors.js';
export type {
  AiSdkModelOptions,
  AnthropicLlmOptions,
  EchoLlmOptions,
  EchoScriptStep,
  HttpLlmOptions,
  LlmCallSettings,
  LlmOptions,
  OpenAiCompatibleLlmOptions,
  OpenAiLlmOptions,
} from './modules/llm/llm-options.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './modules/llm/retries/retry-policy.js';
export { AiSdkLlmAdapter } from './modules/llm/ai-sdk/ai-sdk.adapter.js';
export type { AiSdkLanguageModel } from './modules/llm/ai-sdk/ai-sdk-language-model.js';
export { EchoLlmAdapter } from './modules/llm/echo/echo.adapter.js';
export { createLlmAdapter } from './modules/llm/create-llm-adapter.js';

// Memory policy
export { MemoryProviderModule } from './modules/memory-provider/memory-provider.module.js';
export {
  MEMORY_PROVIDER,
  getMemoryProviderToken,
} from './modules/memory-provider/memory-provider.constants.js';
export { InjectMemoryProvider } from './modules/memory-provider/memory-provider.decorators.js';
export type {
  CustomPolicyOptions,
  MemoryProviderModuleExtras,
  MemoryProviderModuleOptions,
  SummarizingPolicyOptions,
  TokenBudgetPolicyOptions,
  WindowPolicyOptions,
} from './modules/memory-provider/memory-provider.options.js';
export type {
  MemoryProvider,
  PrepareOptions,
} from './modules/memory-provider/interfaces/memory-provider.interface.js';
export { StoreBackedMemoryProvider } from './modules/memory-provider/providers/store-backed.memory-provider.js';
export { DefaultMemoryProvider } from './modules/memory-provider/providers/default.memory-provider.js';
export {
  type TokenBudgetOptions,
  type TokenCounter,
  TokenBudgetMemoryProvider,
} from './modules/memory-provider/providers/token-budget.memory-provider.js';
export {
  type SummarizingOptions,
  SummarizingMemoryProvider,
} from './modules/memory-provider/providers/summarizing.memory-provider.js';
export {
  CANCELLED_TOOL_RESULT,
  type WindowSplit,
  safeWindow,
} from './modules/memory-provider/window/safe-window.js';

// Agent
export { AgentModule } from './modules/agent/agent.module.js';
export { AgentService } from './modules/agent/agent.service.js';
export type {
  AgentMemoryOption,
  AgentModuleOptions,
  AgentQueueOptions,
  AgentRunsOptions,
} from './modules/agent/agent.options.js';
export type { ConflictPolicy } from './modules/agent/agent-runner.js';
export type {
  AgentRunInput,
  AgentRunRecord,
  AgentRunResult,
  AgentRunStatus,
  AgentStreamEvent,
  AgentToolCall,
} from './modules/agent/interfaces/agent-run.interface.js';
export type {
  AgentModelStep,
  AgentRunFlush,
  AgentRunSteps,
  AgentToolStep,
} from './modules/agent/interfaces/agent-run-steps.interface.js';
export type {
  AgentEventBase,
  AgentEvents,
} from './modules/agent/interfaces/agent-events.interface.js';
export {
  AgentKernelHasMemoryFilterError,
  RunBelongsToAnotherConversationError,
} from './modules/agent/errors/agent.errors.js';
export type {
  ConversationListPage,
  ConversationListing,
  ConversationPage,
  ConversationPatch,
  ConversationPosition,
} from './modules/agent/conversations/conversation-directory.interface.js';
export { CONVERSATION_METADATA_LIMITS } from './modules/agent/conversations/conversation-details.js';
export { RUN_ID_PATTERN } from './modules/agent/runs/run-id.js';
export { DEFAULT_RUN_RETENTION_MS } from './modules/agent/runs/run-store.interface.js';

// Long-term memory
export { LongtermMemoryModule } from './modules/longterm/longterm.module.js';
export { LongtermMemoryService } from './modules/longterm/longterm-memory.service.js';
export { LONGTERM_MEMORY_STORE } from './modules/longterm/longterm.constants.js';
export { InjectLongtermMemoryStore } from './modules/longterm/longterm.decorators.js';
export type { LongtermMemoryModuleOptions } from './modules/longterm/longterm.options.js';
export {
  type JsonValue,
  type LongtermMemoryStore,
  type LongtermRecord,
  type LongtermSaveInput,
  MAX_ENTITY_ID_BYTES,
  MAX_LONGTERM_KEY_BYTES,
  MAX_SEARCH_LIMIT,
  MAX_TEXT_SEARCH_LIMIT,
  type SeqCounter,
  type TextSearchHit,
  type TextSearchOptions,
} from './modules/longterm/interfaces/longterm-store.interface.js';
export type {
  MessageRecallHit,
  RecallFilter,
  RecallHit,
  RecallOptions,
  RecallRank,
  RecallRanking,
  RecallScope,
  RecordRecallHit,
} from './modules/longterm/recall/recall.interface.js';
export type { IndexedMessage } from './modules/longterm/recall/message-index.js';
export {
  MAX_INDEXED_WORDS,
  MAX_QUERY_WORDS,
  MAX_WORD_LENGTH,
  type RecordTextFunction,
  defaultRecordText,
  words,
} from './modules/longterm/recall/search-text.js';
export {
  ENGLISH_QUERY_STOP_WORDS,
  type StemFunction,
  type TextAnalysisOptions,
  TextAnalyzer,
} from './modules/longterm/recall/text-analyzer.js';
export { RRF_K } from './modules/longterm/recall/rank-fusion.js';
export type {
  EmbeddingUpdate,
  UnembeddedRecord,
  VectorSearchOptions,
} from './modules/longterm/interfaces/longterm-store.interface.js';
export {
  type EmbeddingModel,
  MAX_EMBEDDING_DIMENSIONS,
} from './modules/longterm/recall/embedding/embedding-model.interface.js';
export {
  HashingEmbeddingModel,
  type HashingEmbeddingOptions,
} from './modules/longterm/recall/embedding/hashing-embedding-model.js';
export {
  type AiSdkEmbeddingModelLike,
  type OpenAiCompatibleEmbedderOptions,
  aiSdkEmbeddingModel,
} from './modules/longterm/recall/embedding/ai-sdk-embedding-model.js';
export { EmbeddingResponseError } from './modules/longterm/recall/embedding/embed-texts.js';
export type { EmbeddingStatus } from './modules/longterm/recall/embedding/embedding-backfill.js';
export type { EmbedderOption } from './modules/longterm/recall/embedding/resolve-embedder.js';
export {
  type RecallRerankOptions,
  type RerankingModel,
  DEFAULT_RERANK_DEPTH,
  DEFAULT_RERANK_TIMEOUT_MS,
  DEFAULT_RERANK_WEIGHT,
} from './modules/longterm/recall/rerank/reranking-model.interface.js';
export { MAX_RERANK_TEXT_CHARS } from './modules/longterm/recall/rerank/rerank-hits.js';
export {
  type AiSdkRerankingModelLike,
  aiSdkRerankingModel,
} from './modules/longterm/recall/rerank/ai-sdk-reranking-model.js';
export {
  WordVectorRerankingModel,
  type WordVectorRerankingOptions,
  WORD_VECTORS_PACKAGE,
  DEFAULT_WORD_VECTOR_WORDS,
} from './modules/longterm/recall/rerank/word-vector-reranking-model.js';
export type { LongtermRecallOptions } from './modules/longterm/longterm.options.js';
export type { PgvectorOption } from './modules/longterm/backends/postgres-pgvector.js';
export type { CachedStep } from './modules/longterm/recall/embedding/embed-texts.js';
export type { RecallMode } from './modules/longterm/recall/recall.interface.js';
export type {
  SessionEmbedder,
  SessionRecaller,
} from './modules/longterm/session/longterm-session.js';
export {
  type AgentRecallOption,
  DEFAULT_TURN_RECALL,
  type TurnRecallSettings,
} from './modules/agent/turn-recall.js';
export {
  type AgentFormationOption,
  type AgentFormationOptions,
  DEFAULT_FORMATION_QUIET_MS,
  type FormationCadence,
  type FormationTenantBounds,
} from './modules/formation/formation.options.js';
export type {
  AppliedOperation,
  ConsolidationChoice,
  FormedMemory,
  MemoryCandidate,
  MemorySource,
} from './modules/formation/formed-memory.interface.js';
export type {
  ChoiceAnswer,
  ChoiceInput,
  ExtractionAnswer,
  ExtractionInput,
  FormationMessage,
  FormationUsage,
  MemoryFormationModel,
} from './modules/formation/formation-model.interface.js';
export {
  type FormationJobRecord,
  FormedMemories,
  type MemoryListOptions,
} from './modules/formation/formed-memories.js';
export {
  type FailedFormation,
  type FailedJob,
  FormationFailures,
} from './modules/formation/formation-failures.js';
export {
  type FormationJob,
  type FormationOutcome,
  type FormationRunOptions,
  type FormationSettings,
  type FormationStepRecorder,
  MemoryFormation,
} from './modules/formation/memory-formation.js';
export {
  type EntityLease,
  type EntityLeases,
  LeaseLostError,
  LeaseWaitTimeoutError,
} from './modules/formation/entity-leases.js';
export {
  type ActiveMemoryCap,
  DEFAULT_ACTIVE_MEMORY_CAP,
} from './modules/formation/active-memory-cap.js';
export { FormationAnswerError } from './modules/formation/formation-answers.js';
export { LlmFormationModel } from './modules/formation/llm.formation-model.js';
export { PlainStatementsFormationModel } from './modules/formation/plain-statements.formation-model.js';
export {
  MemoryNotActiveError,
  correctMemory,
  forgetMemory,
} from './modules/formation/memory-curation.js';
export {
  type EntityProfile,
  EntityProfiles,
  MAX_PROFILE_HISTORY_PAGE,
  type ProfilePatchOutcome,
  type ProfileVersion,
} from './modules/formation/profile/entity-profiles.js';
export {
  DEFAULT_PROFILE_MAX_BYTES,
  DEFAULT_PROFILE_PROMPT_TOKENS,
  type EntityProfileOptions,
  ProfileSchema,
} from './modules/formation/profile/profile-schema.js';
export {
  type JsonObject,
  applyMergePatch,
  isJsonObject,
  patchedPaths,
} from './modules/formation/profile/merge-patch.js';
export type {
  FlushResult,
  LongtermRunView,
  LongtermSession,
  StagedRow,
} from './modules/longterm/session/longterm-session.js';
export {
  LongtermFlushError,
  LongtermMemoryDisabledError,
  LongtermNoEntityError,
} from './modules/longterm/errors/longterm.errors.js';
export type { LongtermStoreSettings } from './modules/longterm/backends/base-longterm.store.js';
export { InMemoryLongtermStore } from './modules/longterm/backends/in-memory.longterm.store.js';
export { PostgresLongtermStore } from './modules/longterm/backends/postgres.longterm.store.js';
export { MysqlLongtermStore } from './modules/longterm/backends/mysql.longterm.store.js';
export { SqliteLongtermStore } from './modules/longterm/backends/sqlite.longterm.store.js';
export {
  RedisLongtermStore,
  type RedisLongtermStoreSettings,
} from './modules/longterm/backends/redis.longterm.store.js';

// Working memory
export { WorkingMemoryModule } from './modules/working-memory/working-memory.module.js';
export { WorkingMemoryService } from './modules/working-memory/working-memory.service.js';
export { WORKING_MEMORY_STORE } from './modules/working-memory/working-memory.constants.js';
export { InjectWorkingMemoryStore } from './modules/working-memory/working-memory.decorators.js';
export type {
  WorkingMemoryModuleOptions,
  WorkingMemoryQuota,
} from './modules/working-memory/working-memory.options.js';
export type { InMemoryCapacity } from './modules/working-memory/backends/in-memory.working-memory.backend.js';
export type {
  SummaryCache,
  WorkingMemoryExpireHook,
  WorkingMemoryHandle,
  WorkingMemoryHandleOptions,
  WorkingMemoryLimits,
  WorkingMemorySnapshot,
  WorkingMemoryValue,
} from './modules/working-memory/interfaces/working-memory.interface.js';
export type { WorkingMemoryBackend } from './modules/working-memory/backends/working-memory-backend.interface.js';
export {
  DropOldestCompactor,
  type DropOldestOptions,
} from './modules/working-memory/compactors/drop-oldest.compactor.js';
export {
  type RingSummary,
  SummarizeCompactor,
  type SummarizeCompactorOptions,
} from './modules/working-memory/compactors/summarize.compactor.js';
export {
  WorkingMemoryContentionError,
  WorkingMemoryFullError,
  WorkingMemoryOverflowError,
  WorkingMemoryQuotaError,
} from './modules/working-memory/errors/working-memory.errors.js';

// Sweeps (long-term expiry, idle working memory, run retention)
export { SweeperModule } from './modules/sweeper/sweeper.module.js';
export type { SweeperModuleOptions } from './modules/sweeper/sweeper.options.js';
export { SWEEP_SCHEDULER } from './modules/sweeper/sweeper.constants.js';
export type {
  ScheduledSweep,
  SweepScheduler,
  SweepTask,
} from './modules/sweeper/interfaces/sweep-scheduler.interface.js';

// HTTP error mapping for your own controllers (the routes: `nest-agent-memory/http`)
export {
  AgentMemoryExceptionFilter,
  AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS,
  type AgentMemoryExceptionFilterOptions,
} from './modules/http/errors/agent-memory-exception.filter.js';
export { type HttpErrorBody, httpErrorBody } from './modules/http/errors/http-error-body.js';
export { httpStatusOfError } from './modules/http/errors/http-status-of-error.js';
/** What a tenant id may be (a `TenantResolver` that returns another fails the request: a 500). */
export { TENANT_ID_PATTERN } from './modules/http/tenancy/tenant-scope.js';
