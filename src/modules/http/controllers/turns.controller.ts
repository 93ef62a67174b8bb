import { Body, Controller, Headers, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadGatewayResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiGatewayTimeoutResponse,
  ApiHeader,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { TurnQueryDto, TurnRequestDto } from '../dto/turn.dto.js';
import { AcceptedRunDto, HttpErrorDto, RunResultDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { SseStream } from '../turns/sse-stream.js';
import {
  type PlatformResponse,
  sendJson,
  streamingResponse,
} from '../platform/platform-response.js';
import { type TurnOutcome, TurnsService } from '../turns/turns.service.js';
import { CallsModel } from './calls-model.decorator.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** Runs agent turns: at once (201), streamed (SSE), or queued (202). */
@ApiTags('turns')
@AgentMemoryRoutes()
@Controller('conversations')
export class TurnsController {
  constructor(private readonly turns: TurnsService) {}

  @Post(':conversationId/turns')
  @CallsModel()
  @ApiOperation({
    summary: 'Run a turn',
    description:
      'Runs one agent turn on the conversation and commits it atomically. `Accept: text/event-stream` streams it as SSE (events `run`, `token`, `tool_call`, `tool_result`, then `done` with the run result or `error`); a client that disconnects does not stop the turn. `?async=true` queues it (202). A repeated `Idempotency-Key` returns the same run.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1–255 printable ASCII' })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiCreatedResponse({ type: RunResultDto, description: 'The committed turn' })
  @ApiAcceptedResponse({ type: AcceptedRunDto, description: 'Queued, or already in progress' })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'Another turn committed first' })
  @ApiBadGatewayResponse({ type: HttpErrorDto, description: 'The model failed' })
  @ApiGatewayTimeoutResponse({ type: HttpErrorDto, description: 'The model timed out' })
  async turn(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Body() body: TurnRequestDto,
    @Query() query: TurnQueryDto,
    @Headers('accept') accept: string | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    // The response is written here (not returned): a streamed turn owns it for the whole run.
    @Res() response: PlatformResponse,
  ): Promise<void> {
    const request = { conversationId, ...body, idempotencyKey };
    if (query.async) return answer(response, await this.turns.submit(scope, request));
    if (!accept?.includes('text/event-stream'))
      return answer(response, await this.turns.run(scope, request));
    const { input, earlier } = await this.turns.prepare(scope, request);
    if (earlier) return answer(response, earlier);
    await this.turns.stream(scope, input, new SseStream(streamingResponse(response)));
  }
}

function answer(response: PlatformResponse, outcome: TurnOutcome): void {
  if (outcome.status === 201) sendJson(response, HttpStatus.CREATED, outcome.result);
  else sendJson(response, HttpStatus.ACCEPTED, outcome.run);
}
