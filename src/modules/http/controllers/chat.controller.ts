import {
  Body,
  Controller,
  Delete,
  Get,
  ConflictException,
  Headers,
  HttpStatus,
  Logger,
  NotFoundException,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ChatRequestDto, UiMessageStreamDto } from '../dto/chat.dto.js';
import { HttpErrorDto } from '../dto/responses.dto.js';
import { ResumeQueryDto } from '../dto/resume-query.dto.js';
import { StreamReaders } from '../streams/stream-readers.js';
import { ResumableChatStreams } from '../streams/resumable-chat-streams.service.js';
import { turnUserChunk } from '../streams/turn-user-chunk.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { ChatTurnsService } from '../turns/chat-turns.service.js';
import { newestUserContent } from '../turns/newest-user-text.js';
import { type PlatformResponse, streamingResponse } from '../platform/platform-response.js';
import { TurnsService } from '../turns/turns.service.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../turns/ui-message-stream.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { CallsModel } from './calls-model.decorator.js';

/** Turns for the Vercel AI SDK's `useChat`, in its UI message stream protocol; resume and Stop. */
@ApiTags('turns')
@AgentMemoryRoutes()
@Controller('conversations')
export class ChatController {
  private readonly readers = new StreamReaders();
  private readonly logger = new Logger('AgentMemoryHttp');

  constructor(
    private readonly turns: TurnsService,
    private readonly chat: ChatTurnsService,
    private readonly streams: ResumableChatStreams,
  ) {}

  @Post(':conversationId/chat')
  @CallsModel()
  @ApiOperation({
    summary: 'Run a turn for useChat (AI SDK UI message stream protocol v1)',
    description:
      "Takes the body `useChat` sends and runs its newest user message as a turn — the same agent run as POST …/turns (run ids, tenants, Idempotency-Key; a client that disconnects does not stop it: GET …/chat/stream resumes its stream, DELETE …/chat/stream stops it). The server owns the history: send only the newest message with the transport's `prepareSendMessagesRequest`. Answers SSE chunks: start, start-step, text-start/-delta/-end, tool-input-available, tool-output-available/-error, finish-step, finish, or error, or abort (stopped); then [DONE].",
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
    @Res() platformResponse: PlatformResponse,
  ): Promise<void> {
    const response = streamingResponse(platformResponse);
    const message = newestUserContent(body);
    const { input, earlier } = await this.turns.prepare(scope, {
      conversationId,
      message,
      ...(body.entityId !== undefined ? { entityId: body.entityId } : {}),
      idempotencyKey,
    });
    await this.chat.stream(input, earlier, response, turnUserChunk(body, input.runId!));
  }

  @Get(':conversationId/chat/stream')
  @ApiOperation({
    summary: "Resume the stream of the conversation's running turn (useChat's resumeStream)",
    description:
      "204 when there is nothing to resume. Otherwise the turn's stream from its first chunk, then live until it ends, in the same protocol as POST …/chat, opened by a transient `data-turn-user` chunk holding the turn's user message (not in the stored history until the turn commits). Pass the `version` of the history you loaded: a turn already in it is not replayed. The turn's messages are stored once, by the turn, however many readers follow it. At most 4 readers of one conversation at a time per instance (429).",
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ type: UiMessageStreamDto })
  @ApiNoContentResponse({ description: 'No stream to resume' })
  @ApiTooManyRequestsResponse({ type: HttpErrorDto, description: 'Too many readers' })
  async resume(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Query() query: ResumeQueryDto,
    @Res() platformResponse: PlatformResponse,
  ): Promise<void> {
    const response = streamingResponse(platformResponse);
    const id = scope.scoped(conversationId, 'conversationId');
    await this.readers.read(id, async () => {
      const gone = new AbortController();
      response.on('close', () => gone.abort());
      const chunks = await this.streams.read(id, query.version, gone.signal);
      if (!chunks) {
        response.writeHead(HttpStatus.NO_CONTENT, {});
        response.end();
        return;
      }
      response.writeHead(HttpStatus.OK, { ...UI_MESSAGE_STREAM_HEADERS });
      response.flushHeaders?.();
      try {
        for await (const chunk of chunks) response.write(`data: ${chunk}\n\n`);
      } catch (error) {
        // The headers are out: the failure is a chunk of the stream, which then ends.
        this.logger.warn(`Resumed stream of ${id} cut: ${(error as Error).message}`);
        const errorText = 'The stream could not be read to its end: reload the conversation';
        response.write(`data: ${JSON.stringify({ type: 'error', errorText })}\n\n`);
      }
      if (!gone.signal.aborted) {
        response.write('data: [DONE]\n\n');
        response.end();
      }
    });
  }

  @Delete(':conversationId/chat/stream')
  @ApiOperation({
    summary: "Stop the conversation's running turn (useChat's Stop, made to reach the server)",
    description:
      "Aborts the turn wherever it runs (with the Redis stream store, on any instance) and waits (up to 10 s) for it to end. 204: stopped — nothing of it is stored, and its stream (the POST's and every reader's) ends with a transient `data-turn-stopped` chunk and `abort`. 409: it had already been saved when the Stop reached it (reload the conversation). 404: no turn of the conversation is running. 202: asked, but the turn has not ended yet.",
  })
  @ApiNoContentResponse({ description: 'Stopped: nothing of the turn is stored' })
  @ApiAcceptedResponse({ type: HttpErrorDto, description: 'Asked; the turn has not ended yet' })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'The turn was already saved' })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No turn is running' })
  async stop(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Res({ passthrough: true }) response: { status(code: number): unknown },
  ): Promise<HttpErrorDto | undefined> {
    const id = scope.scoped(conversationId, 'conversationId');
    const outcome = await this.streams.stop(id);
    if (outcome === 'none') throw new NotFoundException('No turn of this conversation is running');
    if (outcome === 'saved')
      throw new ConflictException(
        'This turn was already saved when the Stop reached it: reload the conversation to see it',
      );
    if (outcome === 'stopped') {
      response.status(HttpStatus.NO_CONTENT);
      return undefined;
    }
    response.status(HttpStatus.ACCEPTED);
    return {
      statusCode: HttpStatus.ACCEPTED,
      error: 'Accepted',
      message: 'Stop asked: the turn has not ended yet',
    };
  }
}
