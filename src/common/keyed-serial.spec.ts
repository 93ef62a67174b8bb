import { describe, expect, it } from '@jest/globals';
import { KeyedSerial } from './keyed-serial.js';

describe('KeyedSerial', () => {
  it('runs one key’s work in order, other keys beside it, past a failure; idle waits for all', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = serial.run('a', async () => {
      await gate;
      log.push('a1');
      throw new Error('a1 failed');
    });
    const second = serial.run('a', async () => {
      log.push('a2');
      return 2;
    });
    await serial.run('b', async () => log.push('b1'));
    expect(log).toEqual(['b1']); // b ran while a's first work waited
    open();
    await expect(first).rejects.toThrow('a1 failed');
    expect(await second).toBe(2);
    await serial.idle();
    expect(log).toEqual(['b1', 'a1', 'a2']);
  });
});
