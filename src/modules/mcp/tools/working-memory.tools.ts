import { NotFoundException } from '@nestjs/common';
import * as z from 'zod/v4';
import { defineMemoryTool } from './memory-tool.js';
import { conversationIdInput, keyInput } from './tool-input.schemas.js';

/** `working_memory_list`: the REST API's `GET /conversations/:conversationId/working-memory`. */
export const workingMemoryListTool = defineMemoryTool({
  name: 'working_memory_list',
  title: "List a conversation's working memory",
  description:
    "Every entry of a conversation's working memory (its scratchpad: short-lived, capped in bytes, " +
    'least recently used evicted first) with its value and size, least recently used first, and the ' +
    'total size. Reading is not a use: it changes no entry’s place.',
  input: z.strictObject({ conversationId: conversationIdInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ conversationId }, { scope, services }) {
    const id = scope.scoped(conversationId, 'conversationId');
    const snapshot = await services.workingMemory.inspect(id);
    return {
      conversationId,
      sizeBytes: snapshot?.sizeBytes ?? 0,
      entries: snapshot?.entries ?? [],
    };
  },
});

/** `working_memory_get`: the REST API's `GET /conversations/:conversationId/working-memory/:key`. */
export const workingMemoryGetTool = defineMemoryTool({
  name: 'working_memory_get',
  title: 'Read one working-memory entry',
  description:
    "One entry of a conversation's working memory by its key: its value and size. An absent key is a " +
    'tool error. Reading is not a use.',
  input: z.strictObject({ conversationId: conversationIdInput, key: keyInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ conversationId, key }, { scope, services }) {
    const id = scope.scoped(conversationId, 'conversationId');
    const snapshot = await services.workingMemory.inspect(id);
    const entry = snapshot?.entries.find((candidate) => candidate.key === key);
    if (!entry) throw new NotFoundException(`No working-memory entry ${JSON.stringify(key)}`);
    return entry;
  },
});
