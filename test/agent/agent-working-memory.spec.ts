import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { SummarizeCompactor } from '../../src/modules/working-memory/compactors/summarize.compactor.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { tempDir } from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Jots ten notes, then one large entry that only fits once the notes are folded. */
const jotTool: KernelToolDefinition = {
  name: 'jot',
  description: 'Keeps notes',
  parameters: { type: 'object', properties: {} },
  handler: async (_args, context) => {
    for (let i = 0; i < 10; i += 1) await context.workingMemory!.append('notes', `n${i}-xxxxxxxx`);
    await context.workingMemory!.set('big', 'y'.repeat(800));
    return 'jotted';
  },
};

describe('an agent run folding working memory with the summarizing compactor', () => {
  it('keeps the summary in the run cache of the run that triggered it', async () => {
    const path = join(tempDir(), 'wm-summary.sqlite');
    const summarizer = new ScriptedLlm([{ content: 'the gist' }]);
    harness = await bootAgent(
      {
        llm: new ScriptedLlm([
          { toolCalls: [{ id: 'c1', name: 'jot', arguments: '{}' }] },
          { content: 'done' },
        ]),
        tools: [jotTool],
      },
      [
        ChatMemoryModule.forRoot({ backend: 'sqlite', path }),
        WorkingMemoryModule.forRoot({
          backend: 'memory',
          capBytes: 1_000,
          compactor: new SummarizeCompactor({ llm: summarizer, keepRecent: 2 }),
          sweep: false,
        }),
      ],
    );
    await harness.agent.run({ conversationId: 'wm', message: 'jot', runId: 'jot-run' });
    expect(summarizer.calls).toHaveLength(1);
    const db = new Database(path, { readonly: true });
    try {
      const rows = db
        .prepare(
          "SELECT entry_key, value FROM agent_run_entries WHERE run_id = ? AND entry_key LIKE 'working-memory-summary:%'",
        )
        .all('jot-run') as Array<{ entry_key: string; value: string }>;
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0]!.value)).toBe('the gist');
    } finally {
      db.close();
    }
  });
});
