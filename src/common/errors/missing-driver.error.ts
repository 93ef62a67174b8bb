import { AgentMemoryError } from './agent-memory.error.js';

/**
 * An optional peer dependency (a database or queue driver) is not installed. The message names the
 * package and the feature that needs it.
 */
export class MissingDriverError extends AgentMemoryError {
  constructor(
    /** The npm package to install, e.g. `pg`. */
    readonly packageName: string,
    /** What needed it, e.g. `the postgres backend`. */
    readonly neededBy: string,
    cause?: unknown,
  ) {
    super(
      `${neededBy} needs the optional package "${packageName}", which is not installed. ` +
        `Install it with: npm install ${packageName}`,
      { cause },
    );
  }
}
