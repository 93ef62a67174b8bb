import { BadRequestException, Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import {
  MAX_RECALL_DEPTH,
  RecallHitDto,
  RecallHitsDto,
  RecallQueryDto,
} from '../dto/recall.dto.js';
import { HttpErrorDto } from '../dto/responses.dto.js';
import type { RecallHit } from '../../longterm/recall/recall.interface.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { headWithinBudget } from './page-budget.js';

/** Default hits in a page. */
const DEFAULT_K = 10;

/** Recall: an entity's records that best match some words. */
@ApiTags('memories')
@AgentMemoryRoutes()
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The long-term tier is off' })
@Controller('entities/:entityId/recall')
export class RecallController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({
    summary:
      "Recall an entity's records and messages by their words and meaning, best match first (paged, byte-budgeted)",
    description:
      'Full-text search (case- and accent-insensitive words, BM25 or the backend’s equivalent) and, when an embedder is configured, vector search (cosine similarity), fused by reciprocal rank fusion (k = 60), over the records, the messages, or both (`scope`). A page holds up to `k` hits and ends early at the byte budget; at most 100 hits are ranked over all pages.',
  })
  @ApiOkResponse({ type: RecallHitsDto })
  async recall(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: RecallQueryDto,
  ): Promise<RecallHitsDto> {
    const id = scope.scoped(entityId, 'entityId');
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    if (offset >= MAX_RECALL_DEPTH)
      throw new BadRequestException('cursor is not one this route gave');
    const k = Math.min(query.k ?? DEFAULT_K, MAX_RECALL_DEPTH - offset);
    const hits = await this.services.longterm.recall(id, query.q, {
      k: offset + k,
      filter: {
        ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
        ...(query.conversationId === undefined
          ? {}
          : { conversationId: scope.scoped(query.conversationId, 'conversationId') }),
      },
      ...(query.mode ? { mode: query.mode } : {}),
      ...(query.scope ? { scope: query.scope } : {}),
    });
    const ranked = hits.slice(offset);
    const presented = ranked.map((hit) => presentHit(scope, entityId, hit));
    const page = presented.filter((hit): hit is RecallHitDto => hit !== undefined);
    const shown = headWithinBudget(page, this.services.pageBytes);
    // The next page starts after the last hit shown (hits not shown to this tenant included).
    const next =
      offset + (shown.length === page.length ? ranked.length : rankOf(presented, shown.length));
    // Another page may follow when this one was cut by the budget or came back full.
    const more = shown.length < page.length || (ranked.length === k && next < MAX_RECALL_DEPTH);
    return { hits: shown, ...(more ? { cursor: String(next) } : {}) };
  }
}

/** How many ranked hits the first `count` presented ones span (the hidden ones among them too). */
function rankOf(presented: ReadonlyArray<RecallHitDto | undefined>, count: number): number {
  let seen = 0;
  for (let i = 0; i < presented.length; i += 1) {
    if (presented[i] !== undefined) seen += 1;
    if (seen === count) return i + 1;
  }
  return presented.length;
}

/** A hit as the API shows it, ids as the tenant knows them (`undefined`: not the tenant's). */
function presentHit(
  scope: TenantScope,
  entityId: string,
  hit: RecallHit,
): RecallHitDto | undefined {
  const ranking = {
    score: hit.score,
    ...(hit.lexical ? { lexical: hit.lexical } : {}),
    ...(hit.vector ? { vector: hit.vector } : {}),
  };
  if (hit.source === 'record')
    return {
      source: 'record',
      key: hit.record.key,
      record: { ...hit.record, entityId },
      ...ranking,
    };
  const conversationId = scope.unscoped(hit.message.conversationId);
  return conversationId === undefined
    ? undefined
    : { source: 'message', message: { ...hit.message, conversationId }, ...ranking };
}
