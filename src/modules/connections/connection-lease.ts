import type { Lease } from '../../common/lease.js';

/**
 * A share of a pooled connection handed out by the `ConnectionRegistry`. Release it once, when its
 * holder shuts down; the registry closes the connection when the last share is released.
 */
export type ConnectionLease<T> = Lease<T>;
