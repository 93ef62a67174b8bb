import type {
  AgentRunRecord,
  AgentRunResult,
  AgentRunStatus,
} from '../interfaces/agent-run.interface.js';
import type { RunStore } from './run-store.interface.js';

const STATUS_KEY = 'status';

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
