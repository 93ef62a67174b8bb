import {
  BadRequestException,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Query,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { MessagesQueryDto } from '../dto/messages-query.dto.js';
import { MessagesPageDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** Default page size of `?before=`. */
const DEFAULT_PAGE = 50;

/** Reads and deletes conversation history. */
@ApiTags('conversations')
@AgentMemoryRoutes()
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get(':conversationId/messages')
  @ApiOperation({
    summary: "A conversation's messages, oldest first",
    description:
      '`?last=N`: the newest N. `?before=P&limit=N`: the N messages before position P (1-based, append-only), for paging backwards; the answer’s `before` is the position for the next page. Neither: the whole history. An unknown conversation is empty, version 0.',
  })
  @ApiOkResponse({ type: MessagesPageDto })
  async messages(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Query() query: MessagesQueryDto,
  ): Promise<MessagesPageDto> {
    const id = scope.scoped(conversationId, 'conversationId');
    const store = this.services.chat;
    if (query.last !== undefined && query.before !== undefined)
      throw new BadRequestException('Give either last or before, not both');
    if (query.before !== undefined) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const from = Math.max(0, query.before - 1 - limit);
      const [messages, version] = await Promise.all([
        store.range(id, from, query.before - 1 - from),
        store.version(id),
      ]);
      return { conversationId, version, messages, ...(from > 0 ? { before: from + 1 } : {}) };
    }
    if (query.last !== undefined) {
      // The version first, then the range up to it: the page and its `before` agree even while
      // turns arrive (a tail read beside a version read could disagree by a turn).
      const version = await store.version(id);
      const from = Math.max(0, version - query.last);
      const messages = version === 0 ? [] : await store.range(id, from, version - from);
      return { conversationId, version, messages, ...(from > 0 ? { before: from + 1 } : {}) };
    }
    const messages = await store.get(id);
    return { conversationId, version: messages.length, messages };
  }

  @Delete(':conversationId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Delete a conversation: its history, its runs and their cached steps',
  })
  @ApiNoContentResponse()
  async delete(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
  ): Promise<void> {
    const id = scope.scoped(conversationId, 'conversationId');
    if (this.services.hasAgent) await this.services.agent.clearConversation(id);
    await this.services.chat.clear(id);
  }
}
