import type { Type } from '@nestjs/common';
import type { TenantResolver } from './tenancy/tenant-resolver.js';

/** Options of `AgentMemoryHttpModule.forRoot`; every one is validated at bootstrap. */
export interface AgentMemoryHttpModuleOptions {
  /**
   * Whose data a request reaches: an instance, or a class built by Nest with its dependencies.
   * Default: one tenant, ids stored as given.
   */
  tenantResolver?: TenantResolver | Type<TenantResolver>;
  /** Appended to the 503 of a memory route while the long-term tier is off (how to turn it on). */
  longtermDisabledHint?: string;
}
