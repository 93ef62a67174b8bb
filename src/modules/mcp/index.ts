/**
 * `nest-agent-memory/mcp`: the package's memory as Model Context Protocol tools over Streamable
 * HTTP, mounted in a Nest app. It needs `@modelcontextprotocol/sdk` and `zod` (optional peers of the
 * package), so apps that do not serve it never load them.
 */
export { AgentMemoryMcpModule } from './agent-memory-mcp.module.js';
export type { AgentMemoryMcpModuleExtras } from './agent-memory-mcp.module-definition.js';
export type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';
export { AgentMemoryMcpServerFactory } from './agent-memory-mcp-server.factory.js';
export { AGENT_MEMORY_MCP_OPTIONS, MCP_TENANT_RESOLVER } from './mcp.constants.js';
export { MCP_MEMORY_TOOL_NAMES } from './tools/memory-tools.js';
