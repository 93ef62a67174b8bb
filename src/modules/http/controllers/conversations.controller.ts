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
import { ConversationsPageDto, PageQueryDto, RunsPageDto } from '../dto/pages.dto.js';
import { presentRecord } from '../turns/run-presenter.js';
import type { AgentRunRecord } from '../../agent/interfaces/agent-run.interface.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { decodePageCursor, encodePageCursor } from './page-cursor.js';
import { headWithinBudget, messagesWithinBudget } from './page-budget.js';

/** Default page size of the messages route. */
const DEFAULT_PAGE = 50;

/** Default page size of the conversation and run lists. */
const DEFAULT_LIST_PAGE = 20;

/** Lists the tenant's conversations; reads and deletes a conversation's history and runs. */
@ApiTags('conversations')
@AgentMemoryRoutes()
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({
    summary: "The tenant's conversations, newest activity first (cursor-paged)",
    description:
      'A conversation is listed from its first turn until it is deleted; `lastActiveAt` is when a turn of it was last queued or began an attempt.',
  })
  @ApiOkResponse({ type: ConversationsPageDto })
  async list(
    @RequestTenant() scope: TenantScope,
    @Query() query: PageQueryDto,
  ): Promise<ConversationsPageDto> {
    const limit = query.limit ?? DEFAULT_LIST_PAGE;
    const position = query.cursor === undefined ? undefined : decodePageCursor(query.cursor);
    // The cursor only places the page inside the tenant's namespace, so its id is taken as is
    // (the default tenant's list may hold ids made through the library, outside the HTTP id set).
    const after = position && {
      lastActiveAt: position.at,
      conversationId: scope.tenant === undefined ? position.id : `${scope.tenant}/${position.id}`,
    };
    const listed = await this.services.agent.conversations(scope.tenant ?? '', {
      limit,
      ...(after ? { after } : {}),
    });
    const shown = listed.map(({ conversationId, lastActiveAt }) => ({
      conversationId: scope.owned(conversationId, 'Conversation not found'),
      lastActiveAt,
    }));
    const conversations = headWithinBudget(shown, this.services.pageBytes);
    const last = conversations.at(-1);
    return {
      conversations,
      ...((listed.length === limit || conversations.length < listed.length) && last
        ? { cursor: encodePageCursor({ at: last.lastActiveAt, id: last.conversationId }) }
        : {}),
    };
  }

  @Get(':conversationId/messages')
  @ApiOperation({
    summary: "A conversation's messages, oldest first, a page at a time from the newest",
    description:
      'Without a query: the newest 50. `?last=N`: the newest N (at most 1000). `?before=P&limit=N`: the N messages before position P (1-based, append-only), for paging backwards. A page also ends early when its messages reach the byte budget (1 MiB of JSON by default); the answer’s `before` is the position for the next page, absent on the first message. An unknown conversation is empty, version 0.',
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
    // The version first, then the range up to it: the page and its `before` cursor agree even
    // while turns arrive (positions are append-only). A `before` past the end pages from the end.
    const version = await store.version(id);
    const end = query.before === undefined ? version : Math.min(query.before - 1, version);
    const { messages, from } = await messagesWithinBudget(store, id, {
      end,
      count: query.last ?? query.limit ?? DEFAULT_PAGE,
      budget: this.services.pageBytes,
    });
    return { conversationId, version, messages, ...(from > 0 ? { before: from + 1 } : {}) };
  }

  @Get(':conversationId/runs')
  @ApiOperation({
    summary: "A conversation's runs, newest first, with status, result or error (cursor-paged)",
  })
  @ApiOkResponse({ type: RunsPageDto })
  async runs(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Query() query: PageQueryDto,
  ): Promise<{ runs: AgentRunRecord[]; cursor?: string }> {
    const id = scope.scoped(conversationId, 'conversationId');
    const limit = query.limit ?? DEFAULT_LIST_PAGE;
    const position = query.cursor === undefined ? undefined : decodePageCursor(query.cursor);
    const after = position && { createdAt: position.at, runId: position.id };
    const listed = await this.services.agent.runsOf(id, { limit, ...(after ? { after } : {}) });
    const runs = headWithinBudget(listed, this.services.pageBytes);
    const last = runs.at(-1);
    return {
      runs: runs.map((record) => presentRecord(scope, record)),
      ...((listed.length === limit || runs.length < listed.length) && last
        ? { cursor: encodePageCursor({ at: last.createdAt, id: last.runId }) }
        : {}),
    };
  }

  @Delete(':conversationId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary:
      'Delete a conversation: its history, its runs and their cached steps, its working memory',
  })
  @ApiNoContentResponse()
  async delete(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
  ): Promise<void> {
    const id = scope.scoped(conversationId, 'conversationId');
    if (this.services.hasAgent) await this.services.agent.clearConversation(id);
    await this.services.chat.clear(id);
    await this.services.clearWorkingMemory(id);
  }
}
