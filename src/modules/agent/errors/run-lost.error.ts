/** The error of a run whose job nobody will process. */
export class RunLostError extends Error {
  constructor(runId: string) {
    super(`Run ${runId} was lost before it ran to the end (its queued job is gone): send it again`);
    this.name = 'RunLostError';
  }
}
