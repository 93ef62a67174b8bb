import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` until it returns a value that passes `done`, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  label = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${label}; last value: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}
