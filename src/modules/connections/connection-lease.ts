/**
 * A share of a pooled connection handed out by the `ConnectionRegistry`. Release it once, when its
 * holder shuts down; the registry closes the connection when the last share is released.
 */
export interface ConnectionLease<T> {
  readonly connection: T;
  /** Gives the share back. Idempotent. */
  release(): Promise<void>;
}
