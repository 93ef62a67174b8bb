/** The request as a tenant resolver sees it: the platform's request object (Express, Fastify). */
export type TenantRequest = Record<string, unknown> & {
  headers: Record<string, string | string[] | undefined>;
};

/**
 * The port through which `AgentMemoryHttpModule` learns whose data a request may reach. Return a
 * tenant id (1–50 characters of letters, digits and `_ - . : @`), or `undefined` for the single
 * default tenant, whose ids are used as given. Typically it reads what the app's auth guard put on
 * the request (`request.user.tenantId`).
 */
export interface TenantResolver {
  /** The request's tenant id, or `undefined` for the default tenant; may resolve asynchronously. */
  resolve(request: TenantRequest): string | undefined | Promise<string | undefined>;
}

/** The default resolver: one tenant for every request (ids are stored as given). */
export class SingleTenantResolver implements TenantResolver {
  /** Always `undefined`: every request belongs to the default tenant. */
  resolve(): undefined {
    return undefined;
  }
}
