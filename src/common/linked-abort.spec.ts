import { describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { linkAbort } from './linked-abort.js';

describe('linkAbort', () => {
  it('follows the parent and leaves nothing on it once disposed', () => {
    const parent = new AbortController();
    const link = linkAbort(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    link.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const followed = linkAbort(parent.signal);
    parent.abort(new Error('stop'));
    expect(followed.signal.aborted).toBe(true);
    expect((followed.signal.reason as Error).message).toBe('stop');
    expect(followed.timedOut).toBe(false);
    expect(linkAbort(parent.signal).signal.aborted).toBe(true);
  });

  it('fires on its own timeout, and a disposed one never does', async () => {
    const timed = linkAbort(undefined, 5);
    const disposed = linkAbort(undefined, 5);
    disposed.dispose();
    await sleep(30);
    expect(timed.signal.aborted).toBe(true);
    expect(timed.timedOut).toBe(true);
    expect(disposed.signal.aborted).toBe(false);
  });

  it('restart moves the deadline: progress keeps it alive, silence lets it fire', async () => {
    const link = linkAbort(undefined, 40);
    for (let i = 0; i < 5; i += 1) {
      await sleep(20); // 100 ms in all, past the first deadline, but never 40 ms without a restart
      link.restart(40);
    }
    expect(link.signal.aborted).toBe(false);
    await sleep(80);
    expect(link.timedOut).toBe(true);
    link.restart(5); // a fired link stays fired: nothing is re-armed
    link.dispose();
  });
});
