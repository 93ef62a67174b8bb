import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AgentRuns } from '../agent.providers.js';
import { readRun } from './run-queries.js';

/** A run store that knows no run, in process memory or shared. */
const runsOf = (shared: boolean) =>
  ({ shared, records: { get: async () => undefined } }) as unknown as AgentRuns;

describe('readRun', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('says once a minute, per run store in process memory, that runs of other processes are not seen', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const local = runsOf(false);
    expect(await readRun(local, 'r1')).toBeUndefined();
    expect(await readRun(local, 'r2')).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/Run r1 is unknown to this process/);
    // Another store has its own minute; a shared store never warns.
    await readRun(runsOf(false), 'r3');
    await readRun(runsOf(true), 'r4');
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
