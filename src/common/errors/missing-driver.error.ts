import { AgentMemoryError } from './agent-memory.error.js';

/**
 * Optional peer dependencies (database, queue or model drivers) are not installed. The message names
 * every missing package and what needs it, with the one command that installs them all.
 */
export class MissingDriverError extends AgentMemoryError {
  /** Every missing package, e.g. `['typeorm', 'pg']`. */
  readonly packageNames: readonly string[];

  constructor(
    /** The npm package(s) to install. */
    packages: string | readonly string[],
    /** What needed them, e.g. `the postgres backend`. */
    readonly neededBy: string,
    cause?: unknown,
  ) {
    const names = typeof packages === 'string' ? [packages] : [...packages];
    const quoted = names.map((name) => `"${name}"`).join(', ');
    super(
      names.length === 1
        ? `${neededBy} needs the optional package ${quoted}, which is not installed. ` +
            `Install it with: npm install ${names[0]}`
        : `${neededBy} needs the optional packages ${quoted}, which are not installed. ` +
            `Install them with: npm install ${names.join(' ')}`,
      { cause },
    );
    this.packageNames = names;
  }

  /** The first missing package (of {@link packageNames}). */
  get packageName(): string {
    return this.packageNames[0]!;
  }
}
