import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningApp } from '../support/app-harness.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

/**
 * The app on PostgreSQL (history, runs; no long-term memory) with its Bull queue on `redisUrl`
 * under a fresh prefix, Bull's locks short enough that another worker takes a dead worker's job
 * within seconds, and the model at `llmUrl` without retries.
 */
export function queuedAppEnv(
  redisUrl: string,
  llmUrl: string,
  label: string,
): Record<string, string> {
  return {
    CHAT_MEMORY_BACKEND: 'postgres',
    DATABASE_URL: TEST_POSTGRES_URL,
    LONGTERM_MEMORY_URI: 'off',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `${label}-${randomUUID().slice(0, 8)}`,
    QUEUE_LOCK_DURATION_MS: '2000',
    QUEUE_STALLED_INTERVAL_MS: '1000',
    OPENAI_BASE_URL: llmUrl,
    LLM_MODEL: 'stub',
    LLM_MAX_RETRIES: '0',
  };
}

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
    await fetch(`${app.url}/conversations/${conversationId}/messages?last=1000`)
  ).json()) as { messages: Array<{ role: string }> };
  return page.messages.map((message) => message.role);
}
