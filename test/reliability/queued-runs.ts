import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningApp } from '../support/app-harness.js';

/** Bull settings that let another worker take a dead worker's job within seconds. */
export const FAST_QUEUE_RECOVERY = {
  QUEUE_LOCK_DURATION_MS: '2000',
  QUEUE_STALLED_INTERVAL_MS: '1000',
};

/**
 * Polls `GET /runs/:runId` every 100 ms, at most `attempts` times, until every run is completed;
 * returns the runs still not completed (none when all made it).
 */
export async function waitUntilCompleted<Run extends { runId: string }>(
  app: RunningApp,
  runs: Run[],
  attempts = 300,
): Promise<Run[]> {
  const status = async (runId: string) =>
    ((await (await fetch(`${app.url}/runs/${runId}`)).json()) as { status: string }).status;
  let pending = runs;
  for (let i = 0; i < attempts && pending.length > 0; i += 1) {
    await sleep(100);
    const states = await Promise.all(pending.map((run) => status(run.runId)));
    pending = pending.filter((_, k) => states[k] !== 'completed');
  }
  return pending;
}

/** The roles of a conversation's stored messages, oldest first. */
export async function storedRoles(app: RunningApp, conversationId: string): Promise<string[]> {
  const page = (await (
    await fetch(`${app.url}/conversations/${conversationId}/messages`)
  ).json()) as { messages: Array<{ role: string }> };
  return page.messages.map((message) => message.role);
}
