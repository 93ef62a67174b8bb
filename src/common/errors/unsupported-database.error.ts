import { AgentMemoryError } from './agent-memory.error.js';

/** The database server cannot run a feature (raised when the feature opens, at bootstrap). */
export class UnsupportedDatabaseError extends AgentMemoryError {
  constructor(
    /** What needs the server, e.g. `the long-term store`. */
    readonly feature: string,
    /** The server's version string, as it reports it. */
    readonly serverVersion: string,
    /** What it needs instead. */
    readonly requirement: string,
  ) {
    super(`${feature} needs ${requirement}; this server reports "${serverVersion}"`);
  }
}
