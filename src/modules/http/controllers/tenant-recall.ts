import { BadRequestException } from '@nestjs/common';
import type { LongtermMemoryService } from '../../longterm/longterm-memory.service.js';
import type { RecallHit, RecallMode, RecallScope } from '../../longterm/recall/recall.interface.js';
import type { RecallHitDto } from '../dto/recall.dto.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { headWithinBudget } from './page-budget.js';

/** Most hits a recall ranks, over all its pages. */
export const MAX_RECALL_DEPTH = 100;

/** Default hits in a page. */
const DEFAULT_K = 10;

/** A recall as a tenant asks it, ids as the tenant knows them (validated by the caller's schema). */
export interface TenantRecallRequest {
  entityId: string;
  query: string;
  k?: number;
  /** The previous page's cursor. */
  cursor?: string;
  prefix?: string;
  conversationId?: string;
  mode?: RecallMode;
  scope?: RecallScope;
}

/** A page of hits, and the cursor of the next one when more may follow. */
export interface TenantRecallPage {
  hits: RecallHitDto[];
  cursor?: string;
}

/**
 * One page of a tenant's recall, as the REST API and the MCP tool serve it: ids scoped to the
 * tenant and back, messages of other tenants' conversations left out, the page cut at `pageBytes`,
 * at most {@link MAX_RECALL_DEPTH} hits ranked over all pages.
 */
export async function tenantRecall(
  longterm: LongtermMemoryService,
  scope: TenantScope,
  request: TenantRecallRequest,
  pageBytes: number,
  caller: string,
): Promise<TenantRecallPage> {
  const id = scope.scoped(request.entityId, 'entityId');
  const offset = request.cursor === undefined ? 0 : Number(request.cursor);
  if (!Number.isInteger(offset) || offset < 0 || offset >= MAX_RECALL_DEPTH)
    throw new BadRequestException(`cursor is not one this ${caller} gave`);
  const k = Math.min(request.k ?? DEFAULT_K, MAX_RECALL_DEPTH - offset);
  const hits = await longterm.recall(id, request.query, {
    k: offset + k,
    filter: {
      ...(request.prefix === undefined ? {} : { prefix: request.prefix }),
      ...(request.conversationId === undefined
        ? {}
        : { conversationId: scope.scoped(request.conversationId, 'conversationId') }),
    },
    ...(request.mode ? { mode: request.mode } : {}),
    ...(request.scope ? { scope: request.scope } : {}),
  });
  const ranked = hits.slice(offset);
  const presented = ranked.map((hit) => presentHit(scope, request.entityId, hit));
  const page = presented.filter((hit): hit is RecallHitDto => hit !== undefined);
  const shown = headWithinBudget(page, pageBytes);
  // The next page starts after the last hit shown (hits not shown to this tenant included).
  const next =
    offset + (shown.length === page.length ? ranked.length : rankOf(presented, shown.length));
  // Another page may follow when this one was cut by the budget or came back full.
  const more = shown.length < page.length || (ranked.length === k && next < MAX_RECALL_DEPTH);
  return { hits: shown, ...(more ? { cursor: String(next) } : {}) };
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

/** A hit as the tenant sees it, ids as the tenant knows them (`undefined`: not the tenant's). */
function presentHit(
  scope: TenantScope,
  entityId: string,
  hit: RecallHit,
): RecallHitDto | undefined {
  const ranking = {
    score: hit.score,
    ...(hit.lexical ? { lexical: hit.lexical } : {}),
    ...(hit.vector ? { vector: hit.vector } : {}),
    ...(hit.rerank ? { rerank: hit.rerank } : {}),
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
