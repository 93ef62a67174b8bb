import { BadRequestException, NotFoundException } from '@nestjs/common';
import * as z from 'zod/v4';
import { recordsWithinBudget } from '../../http/controllers/page-budget.js';
import { decodeKeyCursor, encodeKeyCursor } from '../../http/controllers/page-cursor.js';
import type { LongtermRecord } from '../../longterm/interfaces/longterm-store.interface.js';
import { defineMemoryTool, type MemoryToolContext } from './memory-tool.js';
import { entityIdInput, jsonValueInput, keyInput, seqInput } from './tool-input.schemas.js';

/** Default and largest `limit` of `memory_search` (the REST API's). */
const DEFAULT_SEARCH_LIMIT = 100;
const MAX_SEARCH_LIMIT = 1000;

/** `memory_save`: the REST API's `PUT /entities/:entityId/memories/:key`. */
export const memorySaveTool = defineMemoryTool({
  name: 'memory_save',
  title: 'Save a long-term memory',
  description:
    "Writes one record of an entity's long-term memory under a key (a new key, or a new value for one). " +
    "Seq-guarded: applied iff no live record has a higher seq; without seq the write takes the entity's " +
    'next counter value, so it applies over every earlier write made without one. Answers whether it ' +
    'applied and the record as stored now.',
  input: z.strictObject({
    entityId: entityIdInput,
    key: keyInput,
    value: jsonValueInput,
    seq: seqInput
      .optional()
      .describe("The write's sequence number (default: the next counter value)"),
    ttlMs: z
      .int()
      .min(1)
      .optional()
      .describe('Expire the record this many milliseconds after the write'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  async run({ entityId, key, value, seq, ttlMs }, { scope, services }) {
    const id = scope.scoped(entityId, 'entityId');
    const longterm = services.longterm;
    const { applied } = await longterm.save({
      entityId: id,
      key,
      value,
      seq: seq ?? (await longterm.nextSeq(id)),
      ...(ttlMs !== undefined ? { ttlMs } : {}),
    });
    return { applied, record: shown(await loadRecord(id, key, entityId, { services }), entityId) };
  },
});

/** `memory_get`: the REST API's `GET /entities/:entityId/memories/:key`. */
export const memoryGetTool = defineMemoryTool({
  name: 'memory_get',
  title: 'Read a long-term memory',
  description:
    "Reads one record of an entity's long-term memory by its key: its value, seq and when it was written. " +
    'A key with no live record (never written, deleted or expired) is a tool error.',
  input: z.strictObject({ entityId: entityIdInput, key: keyInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, key }, context) {
    const id = context.scope.scoped(entityId, 'entityId');
    return shown(await loadRecord(id, key, entityId, context), entityId);
  },
});

/** `memory_delete`: the REST API's `DELETE /entities/:entityId/memories/:key`. */
export const memoryDeleteTool = defineMemoryTool({
  name: 'memory_delete',
  title: 'Delete a long-term memory',
  description:
    "Deletes one record of an entity's long-term memory (a seq-guarded tombstone): applied iff seq is at " +
    "least the stored one. Without seq it takes the entity's next counter value, so it deletes over every " +
    'earlier write made without one. Answers whether it applied.',
  input: z.strictObject({
    entityId: entityIdInput,
    key: keyInput,
    seq: seqInput
      .optional()
      .describe('Deletes iff ≥ the stored seq (default: the next counter value)'),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run({ entityId, key, seq }, { scope, services }) {
    const id = scope.scoped(entityId, 'entityId');
    const longterm = services.longterm;
    const { applied } = await longterm.store.delete(id, key, seq ?? (await longterm.nextSeq(id)));
    return { applied };
  },
});

/** `memory_list`: the REST API's `GET /entities/:entityId/memories`. */
export const memoryListTool = defineMemoryTool({
  name: 'memory_list',
  title: 'List long-term memories by key prefix',
  description:
    "Lists an entity's records whose key starts with a prefix (taken literally, case-sensitive; empty: " +
    'every key), in key order, one page at a time: pass the answer’s cursor back for the next page. ' +
    'To find records by their words or meaning, use memory_recall.',
  input: z.strictObject({
    entityId: entityIdInput,
    prefix: z.string().optional().describe('Keys starting with this (default: every key)'),
    limit: z
      .int()
      .min(1)
      .max(MAX_SEARCH_LIMIT)
      .optional()
      .describe(
        `Most records in the page (default ${DEFAULT_SEARCH_LIMIT}); a page also ends at the byte budget`,
      ),
    cursor: z.string().optional().describe('The cursor of the previous page, for the next one'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, prefix = '', limit = DEFAULT_SEARCH_LIMIT, cursor }, context) {
    const id = context.scope.scoped(entityId, 'entityId');
    const after = cursor === undefined ? undefined : decodeKeyCursor(cursor, 'tool');
    // A cursor is the last key of a page of this prefix.
    if (after !== undefined && !after.startsWith(prefix))
      throw new BadRequestException('cursor is not one this tool gave (for this prefix)');
    const store = context.services.longterm.store;
    const { records, more } = await recordsWithinBudget(
      (chunk, from) => store.search(id, prefix, chunk, from),
      { limit, after, budget: context.pageBytes },
    );
    const last = records.at(-1);
    return {
      records: records.map((record) => shown(record, entityId)),
      ...(more && last ? { cursor: encodeKeyCursor(last.key) } : {}),
    };
  },
});

/** The live record, or the REST API's 404. */
async function loadRecord(
  storedId: string,
  key: string,
  entityId: string,
  { services }: Pick<MemoryToolContext, 'services'>,
): Promise<LongtermRecord> {
  const record = await services.longterm.store.load(storedId, key);
  if (!record) throw new NotFoundException(`No memory ${JSON.stringify(key)} for ${entityId}`);
  return record;
}

/** A record with the entity id the tenant knows (never the stored, tenant-prefixed one). */
export function shown(record: LongtermRecord, entityId: string): Record<string, unknown> {
  return { ...record, entityId };
}

/**
 * `memory_search`: the earlier name of `memory_list` (deprecated; removed in 0.3). Every memory tool
 * now speaks one vocabulary: `memory_list` lists by key prefix, `memory_recall` searches by content.
 */
export const deprecatedMemorySearchTool = {
  ...memoryListTool,
  name: 'memory_search',
  title: 'List long-term memories by key prefix (deprecated: use memory_list)',
  description: `Deprecated (removed in 0.3): the earlier name of memory_list. ${memoryListTool.description}`,
};
