import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod/v4';
import type { HttpErrorBody } from '../../http/errors/http-error-body.js';
import type { TenantScope } from '../../http/tenancy/tenant-scope.js';
import type { McpMemoryServices } from '../mcp-memory.services.js';

/** What a tool runs with: the caller's tenant, the memory services, and the page budget. */
export interface MemoryToolContext {
  /** The tenant of the request: turns the ids a client sends into stored ids, and back. */
  scope: TenantScope;
  services: McpMemoryServices;
  /** Most bytes of JSON one page of a list may hold. */
  pageBytes: number;
}

/** One tool: its MCP description, its input schema, and what it does. */
export interface MemoryTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Validated by the SDK before `run`; a call that fails it is a tool error naming the field. */
  input: Input;
  annotations: ToolAnnotations;
  /** The structured answer; throws an `HttpException` or a library error for a tool error. */
  run(args: z.output<Input>, context: MemoryToolContext): Promise<Record<string, unknown>>;
}

/** Types a tool's `run` by its schema (the list of tools holds them erased). */
export function defineMemoryTool<Input extends z.ZodObject>(
  tool: MemoryTool<Input>,
): MemoryTool<z.ZodObject> {
  return tool as unknown as MemoryTool<z.ZodObject>;
}

/**
 * Registers `tool` on `server`: its answer goes out as structured content and as JSON text (for
 * clients that read text only); an error as a tool result with `isError: true`, its message the
 * one the REST API would give (`errorBody`), never an internal detail.
 */
export function registerMemoryTool(
  server: McpServer,
  tool: MemoryTool,
  context: MemoryToolContext,
  errorBody: (error: unknown) => HttpErrorBody,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      annotations: { ...tool.annotations, title: tool.title },
    },
    async (args: z.output<z.ZodObject>): Promise<CallToolResult> => {
      try {
        return toolResult(await tool.run(args, context));
      } catch (error) {
        return toolError(errorBody(error));
      }
    },
  );
}

/** A successful tool result holding `data`. */
export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/** A tool error: `<reason>: <message>` as text, the REST API's error body as structured content. */
export function toolError(body: HttpErrorBody): CallToolResult {
  return {
    content: [{ type: 'text', text: `${body.error}: ${body.message}` }],
    structuredContent: { ...body },
    isError: true,
  };
}
