import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { RateLimit } from '../../../common/rate-limit.js';
import { assertConversationId } from '../../../common/messages/message-validation.js';
import type { AgentRuns } from '../agent.providers.js';
import { checkMetadataFilter } from '../conversations/conversation-details.js';
import type {
  ConversationListPage,
  ConversationPage,
} from '../conversations/conversation-directory.interface.js';
import type { AgentRunRecord } from '../interfaces/agent-run.interface.js';

/** Per run store in process memory, how often a miss is logged (once a minute). */
const invisibleRunWarnings = new WeakMap<AgentRuns, RateLimit>();

/**
 * A run's record, or `undefined`. On a run store in process memory, runs of other processes are
 * never seen: a miss says so in the log (at most once a minute).
 */
export async function readRun(runs: AgentRuns, runId: string): Promise<AgentRunRecord | undefined> {
  const record = await runs.records.get(runId);
  if (!record && !runs.shared) {
    let warning = invisibleRunWarnings.get(runs);
    if (!warning) invisibleRunWarnings.set(runs, (warning = new RateLimit(60_000)));
    if (warning.due())
      new Logger('Agent').warn(
        `Run ${runId} is unknown to this process; the agent's run store is process memory, so runs of other processes are not visible (configure runs, or a chat store on a shared backend)`,
      );
  }
  return record;
}

/** A page of 1–100 items, after an earlier page's last one. */
function assertLimit(limit: unknown): void {
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 100)
    throw new InvalidArgumentError('limit', 'must be an integer from 1 to 100');
}

/**
 * A conversation's runs, newest first: `limit` entries of its run index and their records, reading
 * on past a run deleted between the two reads (at most five rounds).
 */
export async function pageRunsOf(
  runs: AgentRuns,
  conversationId: string,
  page: { limit: number; after?: { createdAt: number; runId: string } },
): Promise<AgentRunRecord[]> {
  assertConversationId(conversationId);
  assertLimit(page.limit);
  const found: AgentRunRecord[] = [];
  let before = page.after && { at: page.after.createdAt, runId: page.after.runId };
  for (let round = 0; round < 5 && found.length < page.limit; round += 1) {
    const wanted = page.limit - found.length;
    const entries = await runs.ownership.page(conversationId, wanted, before);
    const records = await Promise.all(entries.map(({ runId }) => runs.records.get(runId)));
    found.push(...records.filter((record): record is AgentRunRecord => record !== undefined));
    if (entries.length < wanted) break;
    before = entries.at(-1);
  }
  return found;
}

/**
 * A namespace's conversations, newest activity first, after a position this function returned,
 * filtered by metadata when the page asks.
 */
export function listConversations(
  runs: AgentRuns,
  namespace: string,
  page: ConversationPage,
): Promise<ConversationListPage> {
  assertLimit(page.limit);
  if (page.metadata !== undefined) checkMetadataFilter(page.metadata);
  const after = page.after;
  if (
    after &&
    (!Number.isSafeInteger(after.lastActiveAt) ||
      after.lastActiveAt < 0 ||
      typeof after.conversationId !== 'string')
  )
    throw new InvalidArgumentError('after', 'must be a position this method returned');
  return runs.directory.list(namespace, {
    limit: page.limit,
    ...(after
      ? { after: { conversationId: after.conversationId, lastActiveAt: after.lastActiveAt } }
      : {}),
    ...(page.metadata && Object.keys(page.metadata).length > 0 ? { metadata: page.metadata } : {}),
  });
}
