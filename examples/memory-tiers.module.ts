// examples/memory-tiers.module.ts
import { Inject, Injectable, Module } from '@nestjs/common';
import {
  AgentModule,
  ChatMemoryModule,
  KernelTool,
  LongtermMemoryModule,
  LongtermMemoryService,
  type ToolContext,
  type WorkingMemorySnapshot,
  WorkingMemoryModule,
} from 'nest-agent-memory';

/** Tools the agent calls; `context.longterm` and `context.workingMemory` come with each call. */
@Injectable()
export class NotebookTools {
  @KernelTool({
    name: 'remember',
    description: 'Remembers a fact about the user for future conversations',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string' }, fact: { type: 'string' } },
      required: ['key', 'fact'],
    },
  })
  remember({ key, fact }: { key: string; fact: string }, context: ToolContext) {
    // Nobody to remember this for: a run without an entity, or no agent run at all (a plain kernel
    // invoke has no `longterm`). With the tier off, `save` throws an error naming it, which the
    // model reads as the tool's answer.
    if (!context.entityId || !context.longterm) return 'not remembered: this run has no user';
    // Staged now, written once the turn commits, with the run's seq: a retried run writes the same bytes.
    context.longterm.save(`facts/${key}`, { fact });
    return 'remembered';
  }

  @KernelTool({
    name: 'jot',
    description: 'Keeps a short note for this conversation only',
    parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
  })
  async jot({ note }: { note: string }, context: ToolContext) {
    await context.workingMemory?.append('notes', note, 32);
    return 'noted';
  }
}

/** When a conversation's scratchpad goes idle, keep its notes in long-term memory first. */
@Injectable()
export class ScratchpadArchiver {
  constructor(@Inject(LongtermMemoryService) private readonly longterm: LongtermMemoryService) {}

  async archive(snapshot: WorkingMemorySnapshot): Promise<void> {
    const notes = snapshot.entries.find((entry) => entry.key === 'notes');
    if (!notes) return;
    const seq = await this.longterm.nextSeq(snapshot.conversationId);
    await this.longterm.store.save({
      entityId: snapshot.conversationId,
      key: 'archived-notes',
      value: notes.value,
      seq,
    });
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: ':memory:' }),
    LongtermMemoryModule.forRoot({ uri: 'sqlite::memory:' }), // or postgres://…, mysql://…, redis://…
    WorkingMemoryModule.forRootAsync({
      inject: [LongtermMemoryService],
      useFactory: (longterm: LongtermMemoryService) => ({
        backend: 'memory', // or { backend: 'redis', url }
        capBytes: 256 * 1024,
        ttlMs: 30 * 60 * 1000,
        onExpire: (snapshot) => new ScratchpadArchiver(longterm).archive(snapshot),
      }),
    }),
    // toolCommands: a '/tool name {json}' message calls a tool (offline demos only).
    AgentModule.forRoot({ llm: { provider: 'echo', toolCommands: true } }),
  ],
  providers: [NotebookTools],
})
export class MemoryTiersModule {}
