import { NotFoundException } from '@nestjs/common';
import * as z from 'zod/v4';
import { FormedMemories } from '../../formation/formed-memories.js';
import { correctMemory, forgetMemory } from '../../formation/memory-curation.js';
import {
  DEFAULT_FORMED_MEMORY_SEARCH,
  MAX_FORMED_MEMORY_SEARCH,
  searchFormedMemories,
} from '../../http/tenancy/formed-memory-search.js';
import { formedMemoryShown } from '../../http/tenancy/formed-memory-view.js';
import { defineMemoryTool } from './memory-tool.js';
import { entityIdInput, queryInput } from './tool-input.schemas.js';

/** A formed memory's id: `m` and 22 base64url characters. */
const memoryIdInput = z
  .string()
  .regex(/^m[A-Za-z0-9_-]{22}$/, 'id must be a formed memory id (m and 22 characters)')
  .describe('The id of a formed memory');

const notFound = (id: string, entityId: string) =>
  new NotFoundException(`No formed memory ${JSON.stringify(id)} for ${entityId}`);

/** `formed_memory_list`: the REST API's `GET /entities/:entityId/formed-memories`. */
export const formedMemoryListTool = defineMemoryTool({
  name: 'formed_memory_list',
  title: "List an entity's formed memories",
  description:
    'The memories formed from the entity’s conversations, in id order: what holds now (default), ' +
    'every version (`state: "all"`), or what held at a time (`asOf`, ISO 8601). Each has its text, ' +
    'kind, sources (conversation, message ids, run), since when it holds, and what it replaced or ' +
    'what replaced it. Paged: pass `cursor` from the previous answer.',
  input: z.strictObject({
    entityId: entityIdInput,
    state: z.enum(['active', 'all']).optional(),
    asOf: z.iso.datetime({ offset: true }).optional(),
    limit: z.int().min(1).max(200).optional(),
    cursor: memoryIdInput.optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, state, asOf, limit, cursor }, { scope, services }) {
    const id = scope.scoped(entityId, 'entityId');
    const page = await new FormedMemories(services.longterm).list(id, {
      limit: limit ?? 50,
      ...(state ? { state } : {}),
      ...(asOf ? { asOf: Date.parse(asOf) } : {}),
      ...(cursor ? { after: cursor } : {}),
    });
    return {
      memories: page.memories.map((memory) => formedMemoryShown(memory, entityId, scope)),
      ...(page.next ? { cursor: page.next } : {}),
    };
  },
});

/** `formed_memory_search`: the REST API's `GET /entities/:entityId/formed-memories?q=`. */
export const formedMemorySearchTool = defineMemoryTool({
  name: 'formed_memory_search',
  title: "Search an entity's formed memories by words",
  description:
    'The memories formed from the entity’s conversations that best match `query`, best first: ' +
    'only what holds now (full-text, fused with vectors when an embedder is configured). Each has ' +
    'its id (to correct or forget it), text, kind and sources.',
  input: z.strictObject({
    entityId: entityIdInput,
    query: queryInput,
    limit: z
      .int()
      .min(1)
      .max(MAX_FORMED_MEMORY_SEARCH)
      .optional()
      .describe(`Most memories in the answer (default ${DEFAULT_FORMED_MEMORY_SEARCH})`),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: ({ entityId, query, limit }, { scope, services }) =>
    searchFormedMemories(services, scope, entityId, query, limit ?? DEFAULT_FORMED_MEMORY_SEARCH),
});

/** `formed_memory_get`: the REST API's `GET /entities/:entityId/formed-memories/:memoryId`. */
export const formedMemoryGetTool = defineMemoryTool({
  name: 'formed_memory_get',
  title: 'Read a formed memory with its history',
  description:
    'One formed memory and every version of it, oldest first, each with the messages it rests on. ' +
    'An unknown id is a tool error.',
  input: z.strictObject({ entityId: entityIdInput, id: memoryIdInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, id }, { scope, services }) {
    const entity = scope.scoped(entityId, 'entityId');
    const memories = new FormedMemories(services.longterm);
    const memory = await memories.get(entity, id);
    if (!memory) throw notFound(id, entityId);
    const history = await memories.history(entity, id);
    return {
      memory: formedMemoryShown(memory, entityId, scope),
      history: history.map((version) => formedMemoryShown(version, entityId, scope)),
    };
  },
});

/** `memory_correct`: the REST API's `POST …/formed-memories/:memoryId/corrections`. */
export const memoryCorrectTool = defineMemoryTool({
  name: 'memory_correct',
  title: 'Correct a formed memory',
  description:
    'A new version of a formed memory with the text given supersedes it; both are kept (its history). ' +
    'A memory that is no longer active is a tool error naming its newest version.',
  input: z.strictObject({
    entityId: entityIdInput,
    id: memoryIdInput,
    text: z.string().min(1).max(500).describe('What the memory should say'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run({ entityId, id, text }, { scope, services }) {
    const entity = scope.scoped(entityId, 'entityId');
    const version = await correctMemory(new FormedMemories(services.longterm), entity, id, text);
    if (!version) throw notFound(id, entityId);
    return formedMemoryShown(version, entityId, scope) as unknown as Record<string, unknown>;
  },
});

/** `memory_forget`: the REST API's `POST …/formed-memories/:memoryId/invalidation`. */
export const memoryForgetTool = defineMemoryTool({
  name: 'memory_forget',
  title: 'Retract a formed memory',
  description:
    'The memory stops being active now and is kept (its history stays readable). Retracting a ' +
    'retracted memory returns it as it is; a replaced one is a tool error naming its newest version.',
  input: z.strictObject({ entityId: entityIdInput, id: memoryIdInput }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run({ entityId, id }, { scope, services }) {
    const entity = scope.scoped(entityId, 'entityId');
    const closed = await forgetMemory(new FormedMemories(services.longterm), entity, id);
    if (!closed) throw notFound(id, entityId);
    return formedMemoryShown(closed, entityId, scope) as unknown as Record<string, unknown>;
  },
});
