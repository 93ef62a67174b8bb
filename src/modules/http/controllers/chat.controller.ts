import { Body, Controller, Headers, Param, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ChatRequestDto, UiMessageStreamDto } from '../dto/chat.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { ChatTurnsService } from '../turns/chat-turns.service.js';
import { newestUserContent } from '../turns/newest-user-text.js';
import type { SseResponse } from '../turns/sse-stream.js';
import { TurnsService } from '../turns/turns.service.js';
import { UiMessageStreamWriter } from '../turns/ui-message-stream.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { CallsModel } from './calls-model.decorator.js';

/** Turns for the Vercel AI SDK's `useChat`, in its UI message stream protocol. */
@ApiTags('turns')
@AgentMemoryRoutes()
@Controller('conversations')
export class ChatController {
  constructor(
    private readonly turns: TurnsService,
    private readonly chat: ChatTurnsService,
  ) {}

  @Post(':conversationId/chat')
  @CallsModel()
  @ApiOperation({
    summary: 'Run a turn for useChat (AI SDK UI message stream protocol v1)',
    description:
      "Takes the body `useChat` sends and runs its newest user message as a turn — the same agent run as POST …/turns (run ids, tenants, Idempotency-Key; a client that disconnects does not stop it). The server owns the history: send only the newest message with the transport's `prepareSendMessagesRequest`. Answers SSE chunks: start, start-step, text-start/-delta/-end, tool-input-available, tool-output-available/-error, finish-step, finish, or error; then [DONE].",
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1–255 printable ASCII' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ type: UiMessageStreamDto })
  async chatTurn(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Body() body: ChatRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    // Written here for the whole run: the stream owns the response.
    @Res() response: SseResponse,
  ): Promise<void> {
    const message = newestUserContent(body);
    const { input, earlier } = await this.turns.prepare(scope, {
      conversationId,
      message,
      ...(body.entityId !== undefined ? { entityId: body.entityId } : {}),
      idempotencyKey,
    });
    await this.chat.stream(input, earlier, new UiMessageStreamWriter(response, input.runId!));
  }
}
