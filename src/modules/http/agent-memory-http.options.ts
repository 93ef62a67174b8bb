import type { Type } from '@nestjs/common';
import type { ResumableStreamsOptions } from './streams/resumable-streams.options.js';
import type { TenantResolver } from './tenancy/tenant-resolver.js';

/** Options of `AgentMemoryHttpModule.forRoot`; every one is validated at bootstrap. */
export interface AgentMemoryHttpModuleOptions {
  /**
   * Whose data a request reaches: an instance, or a class built by Nest with its dependencies.
   * Default: one tenant, ids stored as given.
   */
  tenantResolver?: TenantResolver | Type<TenantResolver>;
  /**
   * Most bytes of JSON one page of a list may hold (messages, runs, conversations, memory search);
   * a page reaching it ends early, with the cursor for the rest (always at least one item).
   * Default 1 MiB.
   */
  pageBytes?: number;
  /** Appended to the 503 of a memory route while the long-term tier is off (how to turn it on). */
  longtermDisabledHint?: string;
  /**
   * Where the streams of running chat turns are kept, so a reload resumes a reply and a Stop
   * reaches its turn: process memory (default, one instance) or Redis (several instances).
   */
  resumableStreams?: ResumableStreamsOptions;
}
