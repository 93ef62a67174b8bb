/** An environment variable has an invalid value; startup stops with this message. */
export class ConfigValidationError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`Invalid environment variable ${variable}: ${problem}`);
    this.name = 'ConfigValidationError';
  }
}
