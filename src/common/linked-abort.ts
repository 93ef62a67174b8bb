/** A signal that fires when its parent does or when its own timeout passes; `dispose` unlinks it. */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  /** True if it fired because of its own timeout (not the parent). */
  readonly timedOut: boolean;
  /** Clears the timer and starts a new one of `timeoutMs` (a deadline that moves with progress). */
  restart(timeoutMs: number): void;
  /** Removes the listener on the parent and clears the timer. Call it when the work is done. */
  dispose(): void;
}

/**
 * Derives a child signal from `parent`, with an optional timeout. Unlike `AbortSignal.any`, it
 * holds nothing on the parent once disposed: a long-lived parent (an app-wide signal) does not
 * accumulate every child ever derived from it.
 */
export function linkAbort(
  parent: AbortSignal | undefined,
  timeoutMs?: number,
  timeoutReason?: () => unknown,
): LinkedAbort {
  const controller = new AbortController();
  let timedOut = false;
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const arm = (ms: number) =>
    setTimeout(() => {
      timedOut = true;
      controller.abort(timeoutReason?.() ?? new Error(`timed out after ${ms} ms`));
    }, ms);
  let timer = timeoutMs === undefined ? undefined : arm(timeoutMs);
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    restart: (ms) => {
      clearTimeout(timer);
      if (!controller.signal.aborted) timer = arm(ms);
    },
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
