import type {
  AgentRunRecord,
  AgentRunResult,
  AgentRunStatus,
} from '../interfaces/agent-run.interface.js';
import type { RunStore } from './run-store.interface.js';

const STATUS_KEY = 'status';

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
    const now = this.now();
    const mine: AgentRunRecord = {
      runId,
      conversationId,
      status: 'running',
      createdAt: now,
      updatedAt: now,
    };
    const json = JSON.stringify(mine);
    const stored = await this.store.putIfAbsent(runId, STATUS_KEY, json);
    if (stored === json) return undefined;
    const record = JSON.parse(stored) as AgentRunRecord;
    const takeable =
      record.status === 'failed' ||
      (record.status === 'running' && now - record.updatedAt > STALE_RUNNING_MS);
    if (!takeable) return record;
    const token = `${now}:${Math.random()}`;
    const takeover = `takeover:${record.status}:${record.updatedAt}`;
    if ((await this.store.putIfAbsent(runId, takeover, token)) !== token) return record;
    await this.set(runId, conversationId, 'running');
    return undefined;
  }

  /** Writes the new status, keeping the creation time; a completed run is never downgraded. */
  async set(
    runId: string,
    conversationId: string,
    status: AgentRunStatus,
    details: { result?: AgentRunResult; error?: unknown } = {},
  ): Promise<AgentRunRecord> {
    const previous = await this.get(runId);
    if (previous?.status === 'completed' && status !== 'completed') return previous;
    const now = this.now();
    const record: AgentRunRecord = {
      runId,
      conversationId,
      status,
      ...(details.result ? { result: details.result } : {}),
      ...(details.error !== undefined ? { error: describeError(details.error) } : {}),
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
