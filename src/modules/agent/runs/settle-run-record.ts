import type { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentRunStatus } from '../interfaces/agent-run.interface.js';
import type { RunRecords, RunTransition } from './run-records.js';
import type { RunSnapshot } from './run-snapshot.js';

/** Tries of a run record's final write before it is left to the lease (1.5 s of waits in all). */
const SETTLE_TRIES = 5;
const SETTLE_FIRST_DELAY_MS = 100;

/**
 * Writes a run's state, trying again through a passing store fault (5 tries, 100 ms doubling);
 * resolves false if it could not (the lease then runs out, and the run is taken over or reported by
 * its queue), with the failure logged. Never throws.
 */
export async function settleRunRecord(
  records: RunRecords,
  logger: Logger,
  runId: string,
  conversationId: string,
  status: AgentRunStatus,
  details: RunTransition,
  /** What the caller knows of the record (see `RunSnapshot`). */
  known?: RunSnapshot,
): Promise<boolean> {
  for (let tries = 1; ; tries += 1) {
    try {
      await records.set(runId, conversationId, status, details, known);
      return true;
    } catch (error) {
      if (tries >= SETTLE_TRIES) {
        logger.error(
          `Run ${runId}: status ${status} not recorded after ${tries} tries: ${(error as Error).message}`,
        );
        return false;
      }
      await sleep(SETTLE_FIRST_DELAY_MS * 2 ** (tries - 1));
    }
  }
}
