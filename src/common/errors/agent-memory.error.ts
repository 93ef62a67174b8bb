/**
 * Base class of every error the library throws on purpose. `instanceof AgentMemoryError`
 * separates the library's domain errors from driver and programming errors.
 */
export abstract class AgentMemoryError extends Error {
  protected constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
