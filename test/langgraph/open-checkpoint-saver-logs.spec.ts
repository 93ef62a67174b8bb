import { describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import { openCheckpointSaver } from '../../src/modules/langgraph/index.js';
import { tempDir } from '../support/test-databases.js';

/** What a call writes to stdout and stderr. */
async function outputOf(work: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await work();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return written.join('');
}

describe('openCheckpointSaver outside Nest: its log lines', () => {
  it('is quiet by default: migrations applied print nothing', async () => {
    const uri = `sqlite:${join(tempDir(), 'quiet.sqlite')}`;
    const output = await outputOf(async () => {
      const lease = await openCheckpointSaver({ uri });
      await lease.release();
    });
    // (Node's own warnings aside: jest's VM modules print one on a first dynamic import.)
    expect(output).not.toMatch(/Applied|migrations|LangGraph/);
  });

  it('sends them to the logger given', async () => {
    const uri = `sqlite:${join(tempDir(), 'logged.sqlite')}`;
    const lines: string[] = [];
    const logger = { log: (line: unknown) => lines.push(String(line)), warn: () => undefined };
    const lease = await openCheckpointSaver({ uri, logger });
    await lease.release();
    expect(lines).toEqual([
      expect.stringMatching(/^Applied sqlite migrations of LangGraph checkpoints: /),
    ]);
  });
});
