import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTypeScriptChild } from '../support/child-process.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { tempDir } from '../support/test-databases.js';

const WRITER = fileURLToPath(new URL('../support/sqlite-writer.child.ts', import.meta.url));
const PROCESSES = 6;
const MESSAGES = 50;

describe('SQLite store shared by several processes', () => {
  it(`keeps a total order with ${PROCESSES} writer processes that all migrated a new file at once`, async () => {
    const path = join(tempDir(), 'multiprocess.sqlite');
    const conversationId = 'shared';
    const children = Array.from({ length: PROCESSES }, (_, writer) =>
      startTypeScriptChild(WRITER, [path, conversationId, String(writer), String(MESSAGES)]),
    );
    await Promise.all(children.map((child) => child.waitForLine('ready')));
    for (const child of children) child.process.stdin.write('go\n');
    const outputs = await Promise.all(children.map((child) => child.exited));
    const versionsByWriter = outputs.map(
      (output) => JSON.parse(output.trim().split('\n').at(-1)!) as number[],
    );

    const reader = await openChatMemoryModule({ backend: 'sqlite', path });
    try {
      const stored = await reader.subject.get(conversationId);
      const total = PROCESSES * MESSAGES;
      expect(stored).toHaveLength(total);
      expect(new Set(stored.map((m) => m.id)).size).toBe(total);
      expect(versionsByWriter.flat().sort((a, b) => a - b)).toEqual(
        Array.from({ length: total }, (_, i) => i + 1),
      );
      const writers = stored.map(
        (message) => (message.content as string).split(':').map(Number) as [number, number],
      );
      writers.forEach(([writer, i], index) => expect(versionsByWriter[writer]![i]).toBe(index + 1));
      // The writes really raced: the stored order switches between processes many times.
      const switches = writers.filter(
        ([writer], index) => index > 0 && writer !== writers[index - 1]![0],
      ).length;
      expect(switches).toBeGreaterThan(PROCESSES * 2);
    } finally {
      await reader.close();
    }
  }, 120_000);
});
