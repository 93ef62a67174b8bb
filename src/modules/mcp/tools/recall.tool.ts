import * as z from 'zod/v4';
import { MAX_RECALL_DEPTH, tenantRecall } from '../../http/controllers/tenant-recall.js';
import { defineMemoryTool } from './memory-tool.js';
import { conversationIdInput, entityIdInput, queryInput } from './tool-input.schemas.js';

/** The default page size (the REST API's). */
const DEFAULT_K = 10;

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
    query: queryInput,
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
    return { ...(await tenantRecall(services.longterm, scope, input, pageBytes, 'tool')) };
  },
});
