/** Token of the validated `AgentMemoryHttpModule` options. */
export const AGENT_MEMORY_HTTP_OPTIONS = Symbol('AGENT_MEMORY_HTTP_OPTIONS');

/** Token of the module's `TenantResolver`. */
export const TENANT_RESOLVER = Symbol('TENANT_RESOLVER');
