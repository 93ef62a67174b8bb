import { AgentMemoryError } from './agent-memory.error.js';

/**
 * A module's `forRoot`/`forRootAsync` options are invalid. Raised while the application
 * bootstraps, so a misconfigured app never starts.
 */
export class InvalidModuleOptionsError extends AgentMemoryError {
  constructor(
    /** The module whose options are wrong, e.g. `ChatMemoryModule`. */
    readonly moduleName: string,
    /** The option at fault, e.g. `backend` or `url`. */
    readonly option: string,
    /** What is wrong and what is accepted. */
    readonly problem: string,
  ) {
    super(`${moduleName}: invalid option "${option}": ${problem}`);
  }
}
