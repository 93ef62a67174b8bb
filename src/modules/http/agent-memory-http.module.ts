import { type DynamicModule, Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module.js';
import { AgentMemoryHttpServices } from './agent-memory-http.services.js';
import {
  type AgentMemoryHttpModuleExtras,
  ConfigurableAgentMemoryHttpModule,
} from './agent-memory-http.module-definition.js';
import type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';
import { ChatController } from './controllers/chat.controller.js';
import { ConversationsController } from './controllers/conversations.controller.js';
import { MemoriesController } from './controllers/memories.controller.js';
import { FormedMemoriesController } from './controllers/formed-memories.controller.js';
import { EntityProfileController } from './controllers/entity-profile.controller.js';
import { RecallController } from './controllers/recall.controller.js';
import { RunsController } from './controllers/runs.controller.js';
import { TurnsController } from './controllers/turns.controller.js';
import { WorkingMemoryController } from './controllers/working-memory.controller.js';
import { AgentMemoryExceptionFilter } from './errors/agent-memory-exception.filter.js';
import { ResumableChatStreams } from './streams/resumable-chat-streams.service.js';
import { TenantScopeGuard } from './tenancy/tenant-scope.guard.js';
import { ChatTurnsService } from './turns/chat-turns.service.js';
import { TurnsService } from './turns/turns.service.js';
import { TurnsInFlight } from './turns/turns-in-flight.js';

/**
 * The HTTP API over the app's configured agent and memory modules, opt-in:
 * `AgentMemoryHttpModule.forRoot({ path?, tenantResolver?, tools? })`. It brings no auth of its own
 * (the app's guards apply), scopes every id to the request's tenant (`TenantResolver`), validates
 * every body and query, and maps errors to `{ statusCode, error, message }`.
 *
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createAgentMemoryHttpOptions()`); the extras `path`
 *   and `tools` go beside them.
 */
@Module({
  // The registry opens (or shares) the Redis of `resumableStreams`.
  imports: [ConnectionsModule],
  controllers: [
    TurnsController,
    ChatController,
    RunsController,
    ConversationsController,
    MemoriesController,
    FormedMemoriesController,
    EntityProfileController,
    RecallController,
    WorkingMemoryController,
  ],
  providers: [
    AgentMemoryHttpServices,
    AgentMemoryExceptionFilter,
    TenantScopeGuard,
    TurnsService,
    ChatTurnsService,
    TurnsInFlight,
    ResumableChatStreams,
  ],
  exports: [AgentMemoryExceptionFilter],
})
export class AgentMemoryHttpModule extends ConfigurableAgentMemoryHttpModule {
  /** The routes with the defaults (one tenant, built-in tools, no prefix) when called bare. */
  static override forRoot(
    options: AgentMemoryHttpModuleOptions & AgentMemoryHttpModuleExtras = {},
  ): DynamicModule {
    return super.forRoot(options);
  }
}
