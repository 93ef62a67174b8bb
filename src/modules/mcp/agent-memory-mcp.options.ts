import type { Type } from '@nestjs/common';
import type { TenantResolver } from '../http/tenancy/tenant-resolver.js';

/** Options of `AgentMemoryMcpModule.forRoot`; every one is validated at bootstrap. */
export interface AgentMemoryMcpModuleOptions {
  /**
   * Whose data a request reaches: an instance, or a class built by Nest with its dependencies — the
   * same port as `AgentMemoryHttpModule`'s, so one resolver serves both. Default: one tenant, ids
   * stored as given.
   */
  tenantResolver?: TenantResolver | Type<TenantResolver>;
  /**
   * Most bytes of JSON one answer of `memory_list` or `memory_recall` may hold. An answer carries
   * its page twice (structured content, and the same as JSON text for clients that read text only),
   * so a page holds at most half of it; a page reaching that ends early, with the cursor for the
   * rest (always at least one item). Default 1 MiB.
   */
  pageBytes?: number;
  /** Appended to the tool error of a long-term tool while the tier is off (how to turn it on). */
  longtermDisabledHint?: string;
  /**
   * Largest request body the endpoint reads itself, in bytes, when no body parser ran before it
   * (an app created with `bodyParser: false` and no JSON middleware): over it → 413. A body an app's
   * parser already read is bounded by that parser's limit instead. Default 1 MiB.
   */
  maxRequestBodyBytes?: number;
  /** The name the server gives in its MCP `initialize` answer. Default `nest-agent-memory`. */
  serverName?: string;
}
