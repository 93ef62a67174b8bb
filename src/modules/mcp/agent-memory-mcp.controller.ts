import {
  type BeforeApplicationShutdown,
  Controller,
  Delete,
  Get,
  Inject,
  Post,
  Req,
  Res,
  SetMetadata,
} from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerResponse } from 'node:http';
import type { TenantRequest, TenantResolver } from '../http/tenancy/tenant-resolver.js';
import {
  type PlatformResponse,
  rawRequest,
  rawResponse,
} from '../http/platform/platform-response.js';
import type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';
import { AgentMemoryMcpServerFactory } from './agent-memory-mcp-server.factory.js';
import {
  AGENT_MEMORY_MCP_OPTIONS,
  DEFAULT_MCP_BODY_BYTES,
  MCP_TENANT_RESOLVER,
} from './mcp.constants.js';
import { type McpRefusal, type McpRequest, mcpRequestMessage } from './mcp-request-message.js';

/**
 * `@ApiExcludeController()`'s metadata, set without importing `@nestjs/swagger` (an optional peer):
 * the endpoint speaks JSON-RPC, which an OpenAPI document cannot describe.
 */
const SWAGGER_EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';

/** The JSON-RPC error of a method this stateless endpoint does not serve. */
const METHOD_NOT_ALLOWED = JSON.stringify({
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Method not allowed: this MCP endpoint is stateless and takes POST only',
  },
  id: null,
});

/**
 * The MCP endpoint (Streamable HTTP, stateless): each POST gets a fresh server and transport scoped
 * to the request's tenant, answers with JSON, and closes both. It is a Nest route, so the app's
 * guards (auth, rate limits), middleware (body limits) and in-flight tracking apply to it. A POST
 * holds one JSON-RPC message: a batch is refused (400), so every call counts against the tenant's
 * budgets. GET (a server-sent stream) and DELETE (ending a session) are 405: there are no sessions.
 */
@SetMetadata(SWAGGER_EXCLUDE_CONTROLLER, [true])
@Controller()
export class AgentMemoryMcpController implements BeforeApplicationShutdown {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly servers: AgentMemoryMcpServerFactory,
    @Inject(MCP_TENANT_RESOLVER) private readonly tenants: TenantResolver,
    @Inject(AGENT_MEMORY_MCP_OPTIONS) private readonly options: AgentMemoryMcpModuleOptions,
  ) {}

  /** One JSON-RPC message in, its answer out. */
  @Post()
  async post(@Req() request: object, @Res() response: PlatformResponse): Promise<void> {
    const call = this.serve(request, response);
    this.inFlight.add(call);
    try {
      await call;
    } finally {
      this.inFlight.delete(call);
    }
  }

  /** 405: no server-sent stream without sessions. */
  @Get()
  get(@Res() response: PlatformResponse): void {
    methodNotAllowed(rawResponse(response));
  }

  /** 405: no session to end. */
  @Delete()
  delete(@Res() response: PlatformResponse): void {
    methodNotAllowed(rawResponse(response));
  }

  /** Lets tool calls still running finish before the memory stores close. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async serve(platformRequest: object, platformResponse: PlatformResponse): Promise<void> {
    // The platform's request (Express's, or Fastify's wrapper): what the guards marked.
    const tenant = await this.tenants.resolve(platformRequest as TenantRequest);
    const request = rawRequest(platformRequest) as McpRequest;
    const limit = this.options.maxRequestBodyBytes ?? DEFAULT_MCP_BODY_BYTES;
    const body = await mcpRequestMessage(request, limit);
    if (body.kind === 'refused') return refuse(rawResponse(platformResponse), body.refusal);
    const server = this.servers.create(tenant);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: limit,
    });
    try {
      await server.connect(transport);
    } catch (error) {
      // Nothing written yet: the app's filter answers it (on Fastify, before the reply is taken).
      await server.close().catch(() => undefined);
      throw error;
    }
    // From here the transport writes the answer, errors included.
    const response = rawResponse(platformResponse);
    response.once('close', () => void server.close().catch(() => undefined));
    // A body that is not JSON is left to the transport, which answers it (415).
    await transport.handleRequest(
      request,
      response,
      body.kind === 'message' ? body.message : undefined,
    );
  }
}

function refuse(response: ServerResponse, refusal: McpRefusal): void {
  response.writeHead(refusal.status, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: refusal.code, message: refusal.message },
      id: null,
    }),
  );
}

function methodNotAllowed(response: ServerResponse): void {
  response
    .writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
    .end(METHOD_NOT_ALLOWED);
}
