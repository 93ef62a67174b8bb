import type { IncomingMessage } from 'node:http';

/** A request as the platform hands it over: maybe with a body a parser already read. */
export type McpRequest = IncomingMessage & { body?: unknown };

/** A JSON-RPC error answered before the MCP server sees the request. */
export interface McpRefusal {
  status: number;
  code: number;
  message: string;
}

/** What the endpoint does with a POST: hand the SDK its one message, let the SDK answer, or refuse. */
export type McpRequestMessage =
  | { kind: 'message'; message: unknown }
  | { kind: 'unread' }
  | { kind: 'refused'; refusal: McpRefusal };

/**
 * Refusal of a JSON-RPC batch. MCP removed batching in protocol version 2025-06-18; a batch would
 * also be one request against every per-request budget (rate limits, body and page sizes) while
 * doing the work of up to 100.
 */
export const BATCH_REFUSED: McpRefusal = {
  status: 400,
  code: -32600,
  message:
    'Invalid Request: JSON-RPC batches are not accepted (MCP removed batching in 2025-06-18); send one message per request',
};

/**
 * The one JSON-RPC message of an MCP POST: the body a platform parser already read, else the body
 * read here (at most `limit` bytes) when it is JSON. A batch (a JSON array) is refused, an
 * oversized or malformed body too. A body that is not declared as JSON is left unread, for the SDK
 * to answer (415).
 */
export async function mcpRequestMessage(
  request: McpRequest,
  limit: number,
): Promise<McpRequestMessage> {
  let message: unknown;
  if (request.readableEnded) message = request.body;
  else if (!isJson(request.headers['content-type'])) return { kind: 'unread' };
  else {
    const text = await readBody(request, limit);
    if (text === undefined)
      return {
        kind: 'refused',
        refusal: {
          status: 413,
          code: -32000,
          message: `Payload Too Large: Request body must not exceed ${limit} bytes`,
        },
      };
    try {
      message = JSON.parse(text) as unknown;
    } catch {
      return {
        kind: 'refused',
        refusal: { status: 400, code: -32700, message: 'Parse error: Invalid JSON' },
      };
    }
  }
  if (Array.isArray(message)) return { kind: 'refused', refusal: BATCH_REFUSED };
  return { kind: 'message', message };
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The body as text; `undefined` as soon as it passes `limit` bytes (the rest is drained unread, so
 * the connection can still carry the answer).
 */
function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      request.off('data', onData).off('end', onEnd).off('error', reject);
      request.resume();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks).toString('utf8'));
    request.on('data', onData).once('end', onEnd).once('error', reject);
  });
}
