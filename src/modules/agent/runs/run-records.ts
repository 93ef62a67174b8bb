import { randomUUID } from 'node:crypto';
import type {
  AgentRunRecord,
  AgentRunResult,
  AgentRunStatus,
} from '../interfaces/agent-run.interface.js';
import type { RunStore } from './run-store.interface.js';

const STATUS_KEY = 'status';
const RESERVATION_KEY = 'reservation';

/**
 * How long a run may stay `running` before `reserve` lets another caller take it over (its process
 * is presumed dead): 10 minutes.
 */
export const STALE_RUNNING_MS = 10 * 60 * 1000;

/** Reads and writes run records (status, result, error) in the run store. */
export class RunRecords {
  constructor(
    private readonly store: RunStore,
    private readonly now: () => number = Date.now,
  ) {}

  async get(runId: string): Promise<AgentRunRecord | undefined> {
    const json = await this.store.get(runId, STATUS_KEY);
    return json ? (JSON.parse(json) as AgentRunRecord) : undefined;
  }

  /**
   * Records the run `running` unless it has a record (atomically: the first caller wins) and
   * returns `undefined` to the winner; otherwise returns the record. A `failed` run, or one left
   * `running` past {@link STALE_RUNNING_MS}, may be taken over once per record version: the winner
   * gets `undefined`, everyone else the record.
   */
  async reserve(runId: string, conversationId: string): Promise<AgentRunRecord | undefined> {
    // A random token, so two callers in the same millisecond cannot both read the entry as theirs.
    const won = await this.claim(runId, RESERVATION_KEY);
    const existing = await this.get(runId);
    if (won && !existing) {
      await this.set(runId, conversationId, 'running');
      return undefined;
    }
    const now = this.now();
    // Without a record, the winner has not written its status yet: it is running.
    const record = existing ?? {
      runId,
      conversationId,
      status: 'running' as const,
      createdAt: now,
      updatedAt: now,
    };
    const takeable =
      record.status === 'failed' ||
      (record.status === 'running' && now - record.updatedAt > STALE_RUNNING_MS);
    if (!takeable || !(await this.claim(runId, `takeover:${record.status}:${record.updatedAt}`)))
      return record;
    await this.set(runId, conversationId, 'running');
    return undefined;
  }

  /** Whether this caller is the first to put a (random) token under `key`. */
  private async claim(runId: string, key: string): Promise<boolean> {
    const token = randomUUID();
    return (await this.store.putIfAbsent(runId, key, token)) === token;
  }

  /**
   * Writes the new status, keeping the creation time and counting attempts (`startsAttempt`); a
   * completed run is never downgraded.
   */
  async set(
    runId: string,
    conversationId: string,
    status: AgentRunStatus,
    details: { result?: AgentRunResult; error?: unknown; startsAttempt?: boolean } = {},
  ): Promise<AgentRunRecord> {
    const previous = await this.get(runId);
    if (previous?.status === 'completed' && status !== 'completed') return previous;
    const now = this.now();
    const attempts = (previous?.attempts ?? 0) + (details.startsAttempt ? 1 : 0);
    const record: AgentRunRecord = {
      runId,
      conversationId,
      status,
      ...(details.result ? { result: details.result } : {}),
      ...(details.error !== undefined ? { error: describeError(details.error) } : {}),
      ...(attempts > 0 ? { attempts } : {}),
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    await this.store.put(runId, STATUS_KEY, JSON.stringify(record));
    return record;
  }
}

function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}
