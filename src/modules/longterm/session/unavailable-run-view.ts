import type { LongtermRunView } from './longterm-session.js';

/**
 * What a tool gets as `context.longterm` when the run cannot use long-term memory (the tier is off,
 * or the run has no entity): every use throws the error that says why, instead of a bare
 * `TypeError` on `undefined`.
 */
export class UnavailableLongtermRunView implements LongtermRunView {
  constructor(private readonly reason: () => Error) {}

  get entityId(): string {
    throw this.reason();
  }

  save(): void {
    throw this.reason();
  }

  async load(): Promise<never> {
    throw this.reason();
  }

  async search(): Promise<never> {
    throw this.reason();
  }

  async recall(): Promise<never> {
    throw this.reason();
  }
}
