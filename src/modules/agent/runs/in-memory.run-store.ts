import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './run-store.interface.js';

/** Process-local run store (the memory backend): not shared, not durable. */
export class InMemoryRunStore implements RunStore {
  private readonly runs = new Map<string, { expiresAt: number; entries: Map<string, string> }>();

  constructor(
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    const entries = this.entries(runId);
    if (!entries.has(key)) entries.set(key, value);
    return entries.get(key)!;
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    const run = this.runs.get(runId);
    return run && run.expiresAt > this.now() ? run.entries.get(key) : undefined;
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    this.entries(runId).set(key, value);
  }

  async sweep(limit: number): Promise<number> {
    let removed = 0;
    for (const [runId, run] of this.runs) {
      if (removed >= limit) break;
      if (run.expiresAt <= this.now()) {
        this.runs.delete(runId);
        removed += 1;
      }
    }
    return removed;
  }

  private entries(runId: string): Map<string, string> {
    let run = this.runs.get(runId);
    if (!run || run.expiresAt <= this.now()) {
      run = { expiresAt: this.now() + this.retentionMs, entries: new Map() };
      this.runs.set(runId, run);
    }
    return run.entries;
  }
}
