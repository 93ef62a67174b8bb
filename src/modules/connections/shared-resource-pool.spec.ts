import { describe, expect, it } from '@jest/globals';
import { SharedResourcePool } from './shared-resource-pool.js';

describe('SharedResourcePool', () => {
  it('opens a key once, shares it, and closes it when the last holder releases', async () => {
    const pool = new SharedResourcePool<{ id: number }>();
    const events: string[] = [];
    let opened = 0;
    const open = async () => {
      opened += 1;
      events.push('open');
      return { id: opened };
    };
    const close = async () => void events.push('close');
    const [a, b] = await Promise.all([
      pool.acquire('k', open, close),
      pool.acquire('k', open, close),
    ]);
    expect(a.value).toBe(b.value);
    await a.release();
    await a.release();
    expect(events).toEqual(['open']);
    await b.release();
    expect(events).toEqual(['open', 'close']);
    const c = await pool.acquire('k', open, close);
    expect(c.value.id).toBe(2);
    await pool.closeAll();
    await c.release();
    expect(events).toEqual(['open', 'close', 'open', 'close']);
  });

  it('forgets a failed open, so the next acquire tries again', async () => {
    const pool = new SharedResourcePool<string>();
    let attempts = 0;
    const open = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('down');
      return 'up';
    };
    await expect(pool.acquire('k', open, async () => undefined)).rejects.toThrow('down');
    expect((await pool.acquire('k', open, async () => undefined)).value).toBe('up');
    expect(pool.size).toBe(1);
  });
});
