import { Inject, Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readFileSync } from 'node:fs';
import { AgentMemoryExceptionFilter } from '../http/errors/agent-memory-exception.filter.js';
import { TenantScope } from '../http/tenancy/tenant-scope.js';
import type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';
import { AGENT_MEMORY_MCP_OPTIONS, DEFAULT_MCP_PAGE_BYTES } from './mcp.constants.js';
import { McpMemoryServices } from './mcp-memory.services.js';
import { registerMemoryTool } from './tools/memory-tool.js';
import { MEMORY_TOOLS } from './tools/memory-tools.js';

/** The package's version, given in the server's `initialize` answer. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** What the server tells a client's model about its tools (`instructions` of `initialize`). */
const INSTRUCTIONS =
  "Durable memory. Long-term memory holds an entity's records (a user's facts, preferences…) under keys: " +
  'memory_save, memory_get, memory_delete, memory_list (by key prefix) and memory_recall (by words and ' +
  "meaning). Memories formed from an entity's conversations are versioned, with their sources: " +
  'formed_memory_list, formed_memory_search (by words), formed_memory_get (with its history), ' +
  'memory_correct and memory_forget; ' +
  'the jobs that formed them: formation_jobs, formation_failures and formation_rerun. An entity ' +
  'profile (when configured): profile_get and profile_patch. ' +
  "Working memory is a conversation's short-lived scratchpad: working_memory_list and " +
  'working_memory_get. Every id is scoped to the credentials of the connection.';

/**
 * Builds memory MCP servers: one `McpServer` per tenant (per request, over HTTP) whose tools reach
 * that tenant's memory only, with the REST API's id rules and tenant prefixing. Use it to serve the
 * same tools over another transport — stdio, say: `factory.create(undefined).connect(new
 * StdioServerTransport())`.
 */
@Injectable()
export class AgentMemoryMcpServerFactory {
  private readonly errors: AgentMemoryExceptionFilter;

  constructor(
    private readonly services: McpMemoryServices,
    @Inject(AGENT_MEMORY_MCP_OPTIONS) private readonly options: AgentMemoryMcpModuleOptions,
  ) {
    this.errors = new AgentMemoryExceptionFilter({
      longtermDisabledHint: options.longtermDisabledHint,
    });
  }

  /**
   * A server with every memory tool, scoped to `tenant` (`undefined`: the default tenant, ids stored
   * as given). Connect it to one transport; close it when the transport is done.
   */
  create(tenant: string | undefined): McpServer {
    const server = new McpServer(
      { name: this.options.serverName ?? 'nest-agent-memory', version: PACKAGE_VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    const context = {
      scope: new TenantScope(tenant),
      services: this.services,
      // An answer carries its page twice (structured, and as JSON text for clients that read text
      // only): a page gets half the budget, so the whole answer stays within it.
      pageBytes: Math.max(1, Math.floor((this.options.pageBytes ?? DEFAULT_MCP_PAGE_BYTES) / 2)),
    };
    for (const tool of MEMORY_TOOLS)
      registerMemoryTool(server, tool, context, (error) => this.errors.toBody(error));
    // The SDK announces list changes once tools are registered; a stateless server sends none.
    server.server.registerCapabilities({ tools: { listChanged: false } });
    return server;
  }
}
