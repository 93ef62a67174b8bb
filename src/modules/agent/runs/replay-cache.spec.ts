import { InMemoryRunStore } from './in-memory.run-store.js';
import { FirstAttemptOvertakenError, ReplayCache } from './replay-cache.js';

describe("ReplayCache's first-attempt view", () => {
  const setup = () => {
    const store = new InMemoryRunStore();
    return { store, view: new ReplayCache(store).forFirstAttempt() };
  };

  it('stores its base with its first step, or before the commit when no step came', async () => {
    const { store, view } = setup();
    expect(await view.baseVersion('r', 0, 4)).toBe(4);
    expect(await store.get('r', 'base:0')).toBeUndefined();
    await view.step('r', 'llm:0:0', async () => 'answer');
    expect(await store.get('r', 'base:0')).toBe('4');

    const { store: other, view: stepless } = setup();
    await stepless.baseVersion('s', 0, 2);
    await stepless.settleBase('s');
    expect(await other.get('s', 'base:0')).toBe('2');
  });

  it('stores no step under a base another attempt stored, and says it was overtaken', async () => {
    const { store, view } = setup();
    await store.putIfAbsent('r', 'base:0', '1');
    await view.baseVersion('r', 0, 4);
    const carrying = view.step('r', 'llm:0:0', async () => 'mine');
    // A step beside it waits for the base, and fails as it does.
    const beside = view.step('r', 'recall', async () => 'block');
    await expect(carrying).rejects.toBeInstanceOf(FirstAttemptOvertakenError);
    await expect(beside).rejects.toBeInstanceOf(FirstAttemptOvertakenError);
    await expect(view.settleBase('r')).rejects.toBeInstanceOf(FirstAttemptOvertakenError);
    expect(await store.entries('r')).toEqual([['base:0', '1']]);

    const { store: other, view: late } = setup();
    await other.putIfAbsent('s', 'base:0', '1');
    await late.baseVersion('s', 0, 3);
    await expect(late.settleBase('s')).rejects.toBeInstanceOf(FirstAttemptOvertakenError);
  });
});
