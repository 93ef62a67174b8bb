import { BadRequestException } from '@nestjs/common';
import * as z from 'zod/v4';
import { headWithinBudget } from '../../http/controllers/page-budget.js';
import type { TenantScope } from '../../http/tenancy/tenant-scope.js';
import type { RecallHit } from '../../longterm/recall/recall.interface.js';
import { shown } from './longterm-record.tools.js';
import { defineMemoryTool } from './memory-tool.js';
import { conversationIdInput, entityIdInput } from './tool-input.schemas.js';

/** Most hits a recall ranks over all its pages, and the default page size (the REST API's). */
const MAX_RECALL_DEPTH = 100;
const DEFAULT_K = 10;

/** A hit as the tool shows it. */
type ShownHit = Record<string, unknown>;

/** `memory_recall`: the REST API's `GET /entities/:entityId/recall`. */
export const memoryRecallTool = defineMemoryTool({
  name: 'memory_recall',
  title: 'Recall memories by words and meaning',
  description:
    "Finds what best matches a query in an entity's memory, best first: its long-term records (default), " +
    'the messages of its conversations (scope messages, when the app indexes them), or both (scope all). ' +
    'Full-text search (case- and accent-insensitive words) and, when the app has an embedder, vector ' +
    'search, fused by reciprocal rank fusion. Paged: pass the answer’s cursor back for more (100 hits at most).',
  input: z.strictObject({
    entityId: entityIdInput,
    query: z
      .string()
      .min(1, 'query must not be empty')
      .max(2_000)
      .describe('What to look for (at most 2,000 characters; the first 32 distinct words count)'),
    k: z
      .int()
      .min(1)
      .max(MAX_RECALL_DEPTH)
      .optional()
      .describe(`Most hits in the page (default ${DEFAULT_K})`),
    scope: z
      .enum(['records', 'messages', 'all'])
      .optional()
      .describe('What to search: records (default), messages, or all of both merged by score'),
    mode: z
      .enum(['hybrid', 'lexical', 'vector'])
      .optional()
      .describe('hybrid (default): full-text and vector lists fused; lexical or vector: one list'),
    prefix: z.string().optional().describe('Only records whose key starts with this (literally)'),
    conversationId: conversationIdInput
      .optional()
      .describe('Only messages of this conversation (scope messages or all)'),
    cursor: z
      .string()
      .regex(/^[1-9]\d{0,2}$/, 'cursor is not one this tool gave')
      .optional()
      .describe('The cursor of the previous page, for the next one'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, { scope, services, pageBytes }) {
    const id = scope.scoped(input.entityId, 'entityId');
    const offset = input.cursor === undefined ? 0 : Number(input.cursor);
    if (offset >= MAX_RECALL_DEPTH)
      throw new BadRequestException('cursor is not one this tool gave');
    const k = Math.min(input.k ?? DEFAULT_K, MAX_RECALL_DEPTH - offset);
    const hits = await services.longterm.recall(id, input.query, {
      k: offset + k,
      filter: {
        ...(input.prefix === undefined ? {} : { prefix: input.prefix }),
        ...(input.conversationId === undefined
          ? {}
          : { conversationId: scope.scoped(input.conversationId, 'conversationId') }),
      },
      ...(input.mode ? { mode: input.mode } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
    });
    const ranked = hits.slice(offset);
    const presented = ranked.map((hit) => presentHit(scope, input.entityId, hit));
    const page = presented.filter((hit): hit is ShownHit => hit !== undefined);
    const shownHits = headWithinBudget(page, pageBytes);
    // The next page starts after the last hit shown (hits hidden from this tenant included).
    const next =
      offset +
      (shownHits.length === page.length ? ranked.length : rankOf(presented, shownHits.length));
    // Another page may follow when this one was cut by the budget or came back full.
    const more = shownHits.length < page.length || (ranked.length === k && next < MAX_RECALL_DEPTH);
    return { hits: shownHits, ...(more ? { cursor: String(next) } : {}) };
  },
});

/** How many ranked hits the first `count` presented ones span (the hidden ones among them too). */
function rankOf(presented: ReadonlyArray<ShownHit | undefined>, count: number): number {
  let seen = 0;
  for (let i = 0; i < presented.length; i += 1) {
    if (presented[i] !== undefined) seen += 1;
    if (seen === count) return i + 1;
  }
  return presented.length;
}

/** A hit with ids as the tenant knows them; `undefined` for a message of another tenant's. */
function presentHit(scope: TenantScope, entityId: string, hit: RecallHit): ShownHit | undefined {
  const ranking = {
    score: hit.score,
    ...(hit.lexical ? { lexical: hit.lexical } : {}),
    ...(hit.vector ? { vector: hit.vector } : {}),
  };
  if (hit.source === 'record')
    return {
      source: 'record',
      key: hit.record.key,
      record: shown(hit.record, entityId),
      ...ranking,
    };
  const conversationId = scope.unscoped(hit.message.conversationId);
  return conversationId === undefined
    ? undefined
    : { source: 'message', message: { ...hit.message, conversationId }, ...ranking };
}
