/**
 * Something a module holds while it lives — a pooled connection, a store, a scheduler — and how to
 * let go of it. Release it once, when the holder shuts down; `release` is idempotent.
 */
export interface Lease<T> {
  readonly value: T;
  release(): Promise<void>;
}
