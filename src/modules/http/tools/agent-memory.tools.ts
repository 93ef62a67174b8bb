import { Inject, Injectable, Optional } from '@nestjs/common';
import { FormedMemories } from '../../formation/formed-memories.js';
import { correctMemory, forgetMemory } from '../../formation/memory-curation.js';
import type { ToolContext } from '../../kernel/interfaces/kernel-tool.interface.js';
import { KernelTool } from '../../kernel/tools/kernel-tool.decorator.js';
import { LongtermMemoryService } from '../../longterm/longterm-memory.service.js';

const KEY = { type: 'string', minLength: 1, description: 'The memory key' };
const MEMORY_ID = {
  type: 'string',
  pattern: '^m[A-Za-z0-9_-]{22}$',
  description: 'The id of a formed memory, as the recalled-memory block gives it',
};

function args(properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * The built-in tools: long-term memory of the turn's entity (`memory_save` stages a write flushed
 * after the turn commits; `memory_get`, `memory_list` by key prefix and `memory_recall` by content
 * read through the staged rows — the names the MCP server and the HTTP routes use too) and the
 * conversation's working memory (`scratchpad_set`, `scratchpad_get`). A turn without an `entityId`
 * gets an error result from the memory tools (the model reads it; the turn goes on). With memory
 * formation, `memory_correct` and `memory_forget` change a formed memory by its id (a new version,
 * or a retraction; both keep history), at once and once per tool call.
 */
@Injectable()
export class AgentMemoryTools {
  constructor(
    @Optional() @Inject(LongtermMemoryService) private readonly longterm?: LongtermMemoryService,
  ) {}

  /** `memory_correct`: a new version of a formed memory with `text`, superseding it. */
  @KernelTool({
    name: 'memory_correct',
    description:
      'Correct a memory formed from earlier conversations when the user says it is wrong or changed: give its id and what it should say.',
    parameters: args({ id: MEMORY_ID, text: { type: 'string', minLength: 1, maxLength: 500 } }, [
      'id',
      'text',
    ]),
  })
  async memoryCorrect(
    input: { id: string; text: string },
    context: ToolContext,
  ): Promise<{ id: string; text: string; supersedes?: string }> {
    const { memories, entityId } = formedOf(context, this.longterm);
    const version = await correctMemory(
      memories,
      entityId,
      input.id,
      input.text,
      context.idempotencyKey,
    );
    if (!version) throw new Error(`No memory ${input.id}`);
    return {
      id: version.id,
      text: version.text,
      ...(version.supersedes ? { supersedes: version.supersedes } : {}),
    };
  }

  /** `memory_forget`: retracts a formed memory (kept, no longer active). */
  @KernelTool({
    name: 'memory_forget',
    description:
      'Forget a memory formed from earlier conversations when the user asks to, or says it no longer holds: give its id.',
    parameters: args({ id: MEMORY_ID }, ['id']),
  })
  async memoryForget(input: { id: string }, context: ToolContext): Promise<{ forgotten: string }> {
    const { memories, entityId } = formedOf(context, this.longterm);
    if (!(await forgetMemory(memories, entityId, input.id)))
      throw new Error(`No memory ${input.id}`);
    return { forgotten: input.id };
  }

  /** `memory_save`: stages `value` under `key` for the entity; written once the turn commits. */
  @KernelTool({
    name: 'memory_save',
    description:
      "Remember a fact about the user across conversations: saves `value` under `key` in the user's long-term memory.",
    parameters: args({ key: KEY, value: { description: 'Any JSON value' } }, ['key', 'value']),
  })
  memorySave(input: { key: string; value: unknown }, context: ToolContext): { saved: string } {
    longtermOf(context).save(input.key, input.value);
    return { saved: input.key };
  }

  /** `memory_get`: the value under `key` (what the run staged, else what is stored), or `null`. */
  @KernelTool({
    name: 'memory_get',
    description: "Read one fact from the user's long-term memory (null when there is none).",
    parameters: args({ key: KEY }, ['key']),
  })
  async memoryGet(input: { key: string }, context: ToolContext): Promise<unknown> {
    const record = await longtermOf(context).load(input.key);
    return record ? record.value : null;
  }

  /**
   * `memory_recall`: up to `limit` (default 5) `{ key, value }` pairs of the user's long-term memory
   * that best match `query` (recall: full-text and, with an embedder, by meaning), the rows this run
   * staged that hold a word of it first.
   */
  @KernelTool({
    name: 'memory_recall',
    description:
      "Recall from the user's long-term memory by content: the facts that best match `query`, most relevant first.",
    parameters: args(
      {
        query: { type: 'string', minLength: 1, description: 'What to look for, in words' },
        prefix: { type: 'string', description: 'Only keys starting with this (literal)' },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      },
      ['query'],
    ),
  })
  async memoryRecall(
    input: { query: string; prefix?: string; limit?: number },
    context: ToolContext,
  ): Promise<Array<{ key: string; value: unknown }>> {
    const records = await longtermOf(context).recall(input.query, {
      k: input.limit ?? 5,
      ...(input.prefix === undefined ? {} : { prefix: input.prefix }),
    });
    return records.map(({ key, value }) => ({ key, value }));
  }

  /**
   * `memory_list`: up to `limit` (default 20) `{ key, value }` pairs whose keys start with
   * `prefix`, in key order, the run's staged rows included.
   */
  @KernelTool({
    name: 'memory_list',
    description:
      "List facts in the user's long-term memory whose keys start with `prefix` (literal), in key order.",
    parameters: args(
      {
        prefix: { type: 'string', description: 'Key prefix; empty lists every key' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      ['prefix'],
    ),
  })
  async memoryList(
    input: { prefix: string; limit?: number },
    context: ToolContext,
  ): Promise<Array<{ key: string; value: unknown }>> {
    const records = await longtermOf(context).search(input.prefix, input.limit ?? 20);
    return records.map(({ key, value }) => ({ key, value }));
  }

  /** `scratchpad_set`: stores `value` under `key` in the conversation's working memory. */
  @KernelTool({
    name: 'scratchpad_set',
    description: 'Jot down a note for the rest of this conversation (working memory).',
    parameters: args({ key: KEY, value: { description: 'Any JSON value' } }, ['key', 'value']),
  })
  async scratchpadSet(
    input: { key: string; value: unknown },
    context: ToolContext,
  ): Promise<{ saved: string }> {
    await workingMemoryOf(context).set(input.key, input.value);
    return { saved: input.key };
  }

  /** `scratchpad_get`: the value under `key` in the conversation's working memory, or `null`. */
  @KernelTool({
    name: 'scratchpad_get',
    description: "Read a note of this conversation's working memory (null when there is none).",
    parameters: args({ key: KEY }, ['key']),
  })
  async scratchpadGet(input: { key: string }, context: ToolContext): Promise<unknown> {
    return (await workingMemoryOf(context).get(input.key)) ?? null;
  }
}

function formedOf(
  context: ToolContext,
  longterm: LongtermMemoryService | undefined,
): { memories: FormedMemories; entityId: string } {
  longtermOf(context);
  if (!longterm?.enabled) throw new Error('Long-term memory is off in this application');
  return { memories: new FormedMemories(longterm), entityId: context.entityId! };
}

function longtermOf(context: ToolContext): NonNullable<ToolContext['longterm']> {
  if (!context.entityId)
    throw new Error(
      'This turn has no entityId, so long-term memory is unavailable: send entityId with the turn',
    );
  if (!context.longterm) throw new Error('Long-term memory is available in agent turns only');
  return context.longterm;
}

function workingMemoryOf(context: ToolContext): NonNullable<ToolContext['workingMemory']> {
  if (!context.workingMemory)
    throw new Error('Working memory is off in this application (WorkingMemoryModule)');
  return context.workingMemory;
}
