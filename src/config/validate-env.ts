import { type AgentConfig, agentConfig, loadAgentConfig } from './agent.config.js';
import { type AppConfig, appConfig, loadAppConfig } from './app.config.js';
import { type AuthConfig, authConfig, loadAuthConfig } from './auth.config.js';
import { chatMemoryConfig, loadChatMemoryConfig } from './chat-memory.config.js';
import type { Env } from './env.js';
import { type HttpConfig, httpConfig, loadHttpConfig } from './http.config.js';
import { type LlmConfig, llmConfig, loadLlmConfig } from './llm.config.js';
import { type LoggingConfig, loadLoggingConfig, loggingConfig } from './logging.config.js';
import { loadLongtermConfig, longtermConfig } from './longterm.config.js';
import { loadWorkingMemoryConfig, workingMemoryConfig } from './working-memory.config.js';
import { loadRedisConfig, type RedisConfig, redisConfig } from './redis.config.js';
import { loadTelemetryConfig, type TelemetryConfig, telemetryConfig } from './telemetry.config.js';

/** Every setting of the example app, by config namespace. */
export interface AllConfig {
  app: AppConfig;
  logging: LoggingConfig;
  chatMemory: ReturnType<typeof loadChatMemoryConfig>;
  longterm: ReturnType<typeof loadLongtermConfig>;
  workingMemory: ReturnType<typeof loadWorkingMemoryConfig>;
  llm: LlmConfig;
  agent: AgentConfig;
  http: HttpConfig;
  auth: AuthConfig;
  redis: RedisConfig;
  telemetry: TelemetryConfig;
}

/**
 * Reads and validates the whole environment once, so the app can stop before Nest starts; throws
 * the first `ConfigValidationError`.
 */
export function loadAllConfig(env: Env = process.env): AllConfig {
  return {
    app: loadAppConfig(env),
    logging: loadLoggingConfig(env),
    chatMemory: loadChatMemoryConfig(env),
    longterm: loadLongtermConfig(env),
    workingMemory: loadWorkingMemoryConfig(env),
    llm: loadLlmConfig(env),
    agent: loadAgentConfig(env),
    http: loadHttpConfig(env),
    auth: loadAuthConfig(env),
    redis: loadRedisConfig(env),
    telemetry: loadTelemetryConfig(env),
  };
}

/** Every config namespace, for `ConfigModule.forRoot({ load })`. */
export const allConfigNamespaces = [
  appConfig,
  loggingConfig,
  chatMemoryConfig,
  longtermConfig,
  workingMemoryConfig,
  llmConfig,
  agentConfig,
  httpConfig,
  authConfig,
  redisConfig,
  telemetryConfig,
];
