/**
 * `nest-agent-memory/http`: the opt-in HTTP API. It needs `@nestjs/swagger`, `class-validator` and
 * `class-transformer` (optional peers of the package), so apps that do not serve it never load them.
 */
export { AgentMemoryHttpModule } from './agent-memory-http.module.js';
export type { AgentMemoryHttpModuleExtras } from './agent-memory-http.module-definition.js';
export type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';
export { AGENT_MEMORY_HTTP_OPTIONS, TENANT_RESOLVER } from './http.constants.js';
export {
  AgentMemoryExceptionFilter,
  AGENT_MEMORY_EXCEPTION_FILTER_OPTIONS,
  type AgentMemoryExceptionFilterOptions,
} from './errors/agent-memory-exception.filter.js';
export { type HttpErrorBody, httpErrorBody } from './errors/http-error-body.js';
export { httpStatusOfError } from './errors/http-status-of-error.js';
export {
  SingleTenantResolver,
  type TenantRequest,
  type TenantResolver,
} from './tenancy/tenant-resolver.js';
export { HTTP_ID_PATTERN, TENANT_ID_PATTERN, TenantScope } from './tenancy/tenant-scope.js';
export { RequestTenant } from './tenancy/request-tenant.decorator.js';
export { CALLS_MODEL, CallsModel } from './controllers/calls-model.decorator.js';
export { AgentMemoryTools } from './tools/agent-memory.tools.js';
export { TurnRequestDto, TurnQueryDto } from './dto/turn.dto.js';
export { ChatRequestDto, type UiMessageInput, UiMessageStreamDto } from './dto/chat.dto.js';
export { UI_MESSAGE_STREAM_HEADERS } from './turns/ui-message-stream.js';
export { MessagesQueryDto } from './dto/messages-query.dto.js';
export {
  DeleteMemoryQueryDto,
  MemorySearchQueryDto,
  PutMemoryDto,
  PutWorkingMemoryDto,
} from './dto/memory.dto.js';
export * from './dto/responses.dto.js';
export {
  RunFlushDto,
  RunStepDto,
  RunStepsDto,
  StagedRowDto,
  StepToolCallDto,
} from './dto/run-steps.dto.js';
export {
  ConversationListingDto,
  ConversationsPageDto,
  PageQueryDto,
  RunsPageDto,
} from './dto/pages.dto.js';
export { UpdateConversationDto } from './dto/conversation-update.dto.js';
export { ResumeQueryDto } from './dto/resume-query.dto.js';
export type { ResumableStreamsOptions } from './streams/resumable-streams.options.js';
export { TURN_USER_CHUNK_TYPE } from './streams/turn-user-chunk.js';
