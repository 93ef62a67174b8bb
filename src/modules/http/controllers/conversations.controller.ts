import {
  BadRequestException,
  ConflictException,
  Controller,
  Body,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Logger,
  NotFoundException,
  Param,
  Patch,
  Query,
} from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { MessagesQueryDto } from '../dto/messages-query.dto.js';
import { HttpErrorDto, MessagesPageDto } from '../dto/responses.dto.js';
import {
  ConversationListingDto,
  ConversationsPageDto,
  PageQueryDto,
  RunsPageDto,
} from '../dto/pages.dto.js';
import { UpdateConversationDto } from '../dto/conversation-update.dto.js';
import type { ConversationListing } from '../../agent/conversations/conversation-directory.interface.js';
import { presentRecord } from '../turns/run-presenter.js';
import type { AgentRunRecord } from '../../agent/interfaces/agent-run.interface.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { decodePageCursor, encodePageCursor } from './page-cursor.js';
import {
  decodeListCursor,
  encodeListCursor,
  parseConversationListQuery,
} from './conversation-list-query.js';
import { headWithinBudget, pageByRanges } from './page-budget.js';
import { ResumableChatStreams } from '../streams/resumable-chat-streams.service.js';

/** Default page size of the messages route. */
const DEFAULT_PAGE = 50;

/** Default page size of the conversation and run lists. */
const DEFAULT_LIST_PAGE = 20;

/** Lists the tenant's conversations; reads and deletes a conversation's history and runs. */
@ApiTags('conversations')
@AgentMemoryRoutes()
@Controller('conversations')
export class ConversationsController {
  private readonly logger = new Logger('AgentMemoryHttp');

  constructor(
    private readonly services: AgentMemoryHttpServices,
    private readonly streams: ResumableChatStreams,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      "The tenant's conversations, newest activity first (cursor-paged, filtered by metadata)",
    description:
      'A conversation is listed from its first stored turn until it is deleted; `lastActiveAt` is when a turn of it was last stored. A turn that fails, is stopped or is still running changes nothing of the list (title, preview, time). Each has its `title`, `preview` (its newest user message) and `metadata` when it has them. `metadata[<key>]=<value>` (up to 5 keys) lists only conversations holding every pair; give the same pairs with `cursor`. A filtered page may hold fewer than `limit` (even none) and still have a `cursor`: on Redis and in memory a page reads at most 1,000 conversations.',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  })
  @ApiQuery({
    name: 'cursor',
    required: false,
    schema: { type: 'string' },
    description: 'The `cursor` of the previous page (with the same `metadata` pairs)',
  })
  @ApiQuery({
    name: 'metadata',
    required: false,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    description: '`metadata[<key>]=<value>`: only conversations whose metadata holds every pair',
  })
  @ApiOkResponse({ type: ConversationsPageDto })
  async list(
    @RequestTenant() scope: TenantScope,
    @Query() raw: Record<string, unknown>,
  ): Promise<ConversationsPageDto> {
    const { page, metadata } = await parseConversationListQuery(raw);
    const limit = page.limit ?? DEFAULT_LIST_PAGE;
    const position =
      page.cursor === undefined ? undefined : decodeListCursor(page.cursor, metadata);
    // The cursor only places the page inside the tenant's namespace, so its id is taken as is
    // (the default tenant's list may hold ids made through the library, outside the HTTP id set).
    const after = position && {
      lastActiveAt: position.at,
      conversationId: scope.tenant === undefined ? position.id : `${scope.tenant}/${position.id}`,
    };
    const listed = await this.services.agent.conversations(scope.tenant ?? '', {
      limit,
      ...(after ? { after } : {}),
      ...(metadata ? { metadata } : {}),
    });
    const shown = listed.conversations.map((listing) => present(scope, listing));
    const conversations = headWithinBudget(shown, this.services.pageBytes);
    const last = conversations.at(-1);
    const next =
      conversations.length < shown.length && last
        ? { at: last.lastActiveAt, id: last.conversationId }
        : listed.next && {
            at: listed.next.lastActiveAt,
            id: scope.owned(listed.next.conversationId, 'Conversation not found'),
          };
    return { conversations, ...(next ? { cursor: encodeListCursor(next, metadata) } : {}) };
  }

  @Patch(':conversationId')
  @ApiOperation({
    summary: 'Rename a conversation or change its metadata',
    description:
      '`title`: 1–200 characters, or `null` to clear it (no default title comes back). `metadata`: keys to set (strings of at most 512 characters) or, with `null`, delete; other keys stay; keys are 1–64 characters of letters, digits, `_ . -`, at most 16 after the change. Answers the conversation as `GET /conversations` lists it; 404 for a conversation that never had a turn (or was deleted).',
  })
  @ApiOkResponse({ type: ConversationListingDto })
  @ApiNotFoundResponse({ description: 'Conversation not found', type: HttpErrorDto })
  async update(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Body() body: UpdateConversationDto,
  ): Promise<ConversationListingDto> {
    const id = scope.scoped(conversationId, 'conversationId');
    const notFound = 'Conversation not found';
    if (!this.services.hasAgent) throw new NotFoundException(notFound);
    const listing = await this.services.agent.updateConversation(id, {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    });
    if (!listing) throw new NotFoundException(notFound);
    return present(scope, listing);
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
    const count = query.last ?? query.limit ?? DEFAULT_PAGE;
    const budget = this.services.pageBytes;
    // The page and its version in one read where the store has it (every built-in one): they agree
    // even while turns arrive (positions are append-only). A `before` past the end pages from the end.
    // Any `before` past the end is the end (the store takes safe integers only).
    const before =
      query.before === undefined ? undefined : Math.min(query.before, Number.MAX_SAFE_INTEGER);
    const { version, messages, from } = store.page
      ? await store.page(id, { before, count, maxBytes: budget })
      : await pageByRanges(store, id, before, count, budget);
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
    description:
      'A chat turn still running (`POST …/chat`) is stopped first, wherever it runs, so nothing of it is stored after the delete. 409 when it has not ended within 10 s.',
  })
  @ApiNoContentResponse()
  @ApiConflictResponse({ type: HttpErrorDto, description: 'A chat turn is still ending' })
  async delete(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
  ): Promise<void> {
    const id = scope.scoped(conversationId, 'conversationId');
    // A first turn commits at version 0 whatever was cleared meanwhile: it ends before the clear.
    // Best effort when the stream store fails: a turn it cannot reach was not recorded either.
    const running = await this.streams.stop(id).catch((error: Error) => {
      this.logger.warn(
        `Delete of ${id}: its running turn could not be asked to stop: ${error.message}`,
      );
      return 'none' as const;
    });
    if (running === 'stopping')
      throw new ConflictException(
        'A turn of this conversation is still ending: delete it again in a moment',
      );
    if (this.services.hasAgent) await this.services.agent.clearConversation(id);
    await this.services.chat.clear(id);
    await this.services.clearWorkingMemory(id);
    // A reply recorded in the last minute is not replayed to a page that reloads.
    await this.streams.forget(id).catch(() => undefined);
  }
}

/** A listing of the directory as the tenant sees it: its own id, the rest as is. */
function present(scope: TenantScope, listing: ConversationListing): ConversationListingDto {
  return {
    ...listing,
    conversationId: scope.owned(listing.conversationId, 'Conversation not found'),
  };
}
