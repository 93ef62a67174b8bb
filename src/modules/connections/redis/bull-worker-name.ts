import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';

const logger = new Logger('BullQueue');
const GUARDED = Symbol('agent-memory:worker-name-guarded');

/** The part of a Bull 4 queue this guard touches (not in Bull's published types). */
type NamedWorkerQueue = Queue & {
  setWorkerName(): Promise<unknown>;
  [GUARDED]?: true;
};

/**
 * Bull 4's `queue.process()` names the worker's blocking connection (`CLIENT SETNAME`) without
 * awaiting or catching the reply. A queue closed before that reply arrives (an app shut down right
 * after it started, a sweep stopped right after it was scheduled) rejects that promise with
 * "Connection is closed." and nobody handles it: an unhandled rejection, which ends a Node process
 * by default. This makes the naming settle quietly (a name is only a label in `CLIENT LIST`; a
 * failure is logged at debug level). Applying it twice is harmless.
 */
export function guardBullWorkerName(queue: Queue): Queue {
  const named = queue as NamedWorkerQueue;
  if (named[GUARDED] || typeof named.setWorkerName !== 'function') return queue;
  const setWorkerName = named.setWorkerName.bind(named);
  named.setWorkerName = () =>
    setWorkerName().catch((error: unknown) => {
      logger.debug(`Worker of queue ${queue.name} not named: ${String(error)}`);
    });
  named[GUARDED] = true;
  return queue;
}
