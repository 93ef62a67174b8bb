import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule } from '@nestjs/throttler';
import {
  type AgentFormationOption,
  AgentMemoryExceptionFilter,
  AgentModule,
  OpenTelemetryFilter,
  SweeperModule,
  WorkingMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';
import { AgentMemoryMcpModule } from '../modules/mcp/index.js';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { ApiKeyTenantResolver } from './auth/api-key.tenant-resolver.js';
import { HealthController } from './health/health.controller.js';
import { WebController } from './web/web.controller.js';
import { memoryStoreModules } from './database/memory-store-modules.js';
import { AppMetrics } from './telemetry/app-metrics.js';
import { telemetryConfig } from '../config/telemetry.config.js';
import type { SqlTarget } from '../config/sql-target.config.js';
import { InFlightRequests } from './lifecycle/in-flight-requests.js';
import { AppRedis } from './redis/app-redis.provider.js';
import { AppRedisModule } from './redis/app-redis.module.js';
import { throttlerOptions } from './throttling/throttler-options.js';
import { AuthFailureLimiter } from './auth/auth-failure-limiter.js';
import { TenantThrottlerGuard } from './throttling/tenant-throttler.guard.js';
import { agentConfig } from '../config/agent.config.js';
import { httpConfig } from '../config/http.config.js';
import { llmConfig } from '../config/llm.config.js';
import { allConfigNamespaces } from '../config/validate-env.js';
import { redisConfig } from '../config/redis.config.js';
import { workingMemoryConfig } from '../config/working-memory.config.js';

/**
 * The example application: the library's modules wired from `src/config` (environment variables,
 * validated at startup) behind `AgentMemoryHttpModule` and, at `/mcp`, `AgentMemoryMcpModule`,
 * with API-key auth, per-tenant rate limits, health, OpenAPI docs and structured logs.
 */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: allConfigNamespaces }),
    AppRedisModule,
    ThrottlerModule.forRootAsync({
      inject: [httpConfig.KEY, AppRedis],
      useFactory: throttlerOptions,
    }),
    TerminusModule,
    WorkingMemoryModule.forRootAsync({
      inject: [workingMemoryConfig.KEY],
      useFactory: (options: ConfigType<typeof workingMemoryConfig>) => options,
    }),
    SweeperModule.forRoot({ driver: 'interval' }),
    AgentModule.forRootAsync({
      inject: [agentConfig.KEY, llmConfig.KEY, telemetryConfig.KEY],
      useFactory: (
        { formation, profile, ...agent }: ConfigType<typeof agentConfig>,
        llm: ConfigType<typeof llmConfig>,
        telemetry: ConfigType<typeof telemetryConfig>,
      ) => ({
        ...agent,
        formation: formationOf(
          formation,
          'provider' in llm.options && llm.options.provider === 'echo',
          profile,
        ),
        llm: llm.options,
        // Every model and tool call traced (GenAI spans), feeding the metrics too.
        filters: [new OpenTelemetryFilter({ captureContent: telemetry.captureContent })],
      }),
    }),
    AgentMemoryHttpModule.forRootAsync({
      inject: [httpConfig.KEY, redisConfig.KEY],
      useFactory: (http: ConfigType<typeof httpConfig>, redis: ConfigType<typeof redisConfig>) => ({
        tenantResolver: ApiKeyTenantResolver,
        longtermDisabledHint: 'set LONGTERM_MEMORY_URI (e.g. sqlite:./data/agent-memory.sqlite)',
        pageBytes: http.pageBytes,
        // With Redis, a reload or a Stop that reaches another instance finds the turn's stream.
        resumableStreams: redis.url
          ? {
              backend: 'redis' as const,
              url: redis.url,
              keyPrefix: `${redis.keyPrefix}chat-streams:`,
            }
          : { backend: 'memory' as const },
      }),
    }),
    // The same memory as MCP tools at POST /mcp, behind the same keys, tenants and rate limits.
    AgentMemoryMcpModule.forRootAsync({
      inject: [httpConfig.KEY],
      useFactory: (http: ConfigType<typeof httpConfig>) => ({
        tenantResolver: ApiKeyTenantResolver,
        longtermDisabledHint: 'set LONGTERM_MEMORY_URI (e.g. sqlite:./data/agent-memory.sqlite)',
        pageBytes: http.pageBytes,
      }),
    }),
  ],
  controllers: [HealthController, WebController],
  providers: [
    ApiKeyAuthenticator,
    AuthFailureLimiter,
    InFlightRequests,
    // Auth first, so the throttler counts per tenant.
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: TenantThrottlerGuard },
    { provide: APP_FILTER, useClass: AgentMemoryExceptionFilter },
  ],
  exports: [ApiKeyAuthenticator, AuthFailureLimiter, InFlightRequests],
})
export class AppModule {
  /**
   * The app with its memory stores: on `database` (the chat store's SQL database, from
   * `appSqlTarget()`) through `TypeOrmModule`, or on the backends the variables name; and the
   * metrics its tracer provider feeds (`startTracing`; without one they stay at zero).
   */
  static forRoot(options: {
    database: SqlTarget | undefined;
    metrics?: AppMetrics;
  }): DynamicModule {
    return {
      module: AppModule,
      imports: memoryStoreModules(options.database),
      providers: [{ provide: AppMetrics, useValue: options.metrics ?? new AppMetrics() }],
      exports: [AppMetrics],
    };
  }
}

/**
 * `AGENT_FORMATION` as the agent's option: unset, the offline demo forms memories with the
 * plain-statements model (a real model's formation costs calls: it is asked for by name). With
 * `AGENT_PROFILE=demo` (the default), a profile of `name`, `city` and `employer` too.
 */
function formationOf(
  chosen: 'off' | 'model' | 'plain-statements' | undefined,
  offline: boolean,
  profile: 'demo' | 'off',
): AgentFormationOption {
  const choice = chosen ?? (offline ? 'plain-statements' : 'off');
  if (choice === 'off') return false;
  return {
    model: choice === 'model' ? 'agent' : 'plain-statements',
    ...(profile === 'demo' ? { profile: { schema: DEMO_PROFILE_SCHEMA } } : {}),
  };
}

/** The example app's profile: what the demo model fills, each a short string. */
const DEMO_PROFILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    city: { type: 'string', maxLength: 200 },
    employer: { type: 'string', maxLength: 200 },
  },
};
