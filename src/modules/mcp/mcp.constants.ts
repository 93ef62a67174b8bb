/** Token of the validated `AgentMemoryMcpModule` options. */
export const AGENT_MEMORY_MCP_OPTIONS = Symbol('AGENT_MEMORY_MCP_OPTIONS');

/** Token of the `TenantResolver` the MCP endpoint scopes each request with. */
export const MCP_TENANT_RESOLVER = Symbol('MCP_TENANT_RESOLVER');

/** The route the endpoint is mounted at when `path` is not given. */
export const DEFAULT_MCP_PATH = 'mcp';

/** Default byte budget of one answer of `memory_list` or `memory_recall` (its page twice): 1 MiB. */
export const DEFAULT_MCP_PAGE_BYTES = 1024 * 1024;

/** Default largest body the endpoint reads itself (when no body parser ran): 1 MiB. */
export const DEFAULT_MCP_BODY_BYTES = 1024 * 1024;
