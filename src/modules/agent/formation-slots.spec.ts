import { describe, expect, it } from '@jest/globals';
import { FormationSlots } from './formation-slots.js';

/** Acquires a slot and notes, once granted, the tenant's name (or `closed`). */
function take(slots: FormationSlots, tenant: string, order: string[]) {
  return slots.acquire(tenant).then((granted) => order.push(granted ? tenant : `closed:${tenant}`));
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FormationSlots', () => {
  it('hands freed slots to the waiting tenants in turn, arrival order within one', async () => {
    const slots = new FormationSlots(1, 1);
    const order: string[] = [];
    for (const tenant of ['a', 'a', 'a', 'b', 'c', 'b']) void take(slots, tenant, order);
    await tick();
    expect(order).toEqual(['a']);
    for (let i = 0; i < 5; i += 1) {
      slots.release(order.at(-1)!);
      await tick();
    }
    expect(order).toEqual(['a', 'a', 'b', 'c', 'a', 'b']);
  });

  it('keeps a tenant at its own limit while others use the free slots', async () => {
    const slots = new FormationSlots(3, 2);
    const order: string[] = [];
    for (const tenant of ['a', 'a', 'a', 'a', 'b']) void take(slots, tenant, order);
    await tick();
    expect(order).toEqual(['a', 'a', 'b']);
    expect(slots.size).toBe(3);
    slots.release('b');
    await tick();
    expect(order).toEqual(['a', 'a', 'b']); // a holds two: its third waits, a slot stays free
    expect(slots.size).toBe(2);
    slots.release('a');
    await tick();
    expect(order).toEqual(['a', 'a', 'b', 'a']);
  });

  it('wakes every waiting job with false at close, holding no slot', async () => {
    const slots = new FormationSlots(1, 1);
    const order: string[] = [];
    for (const tenant of ['a', 'b', 'a']) void take(slots, tenant, order);
    await tick();
    slots.close();
    await tick();
    expect(order).toEqual(['a', 'closed:b', 'closed:a']);
    expect(slots.size).toBe(1);
    slots.release('a');
    expect(slots.size).toBe(0);
  });
});
