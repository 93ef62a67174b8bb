import type { RecordedRequest } from './fake-llm-server.js';

/** Which forced tool a request asks for (`record_memories`, `choose_operations`), if any. */
export function forcedTool(request: RecordedRequest): string | undefined {
  return (request.body['tool_choice'] as { function?: { name?: string } } | undefined)?.function
    ?.name;
}

/** The id of the first user message in an extraction request's quoted data. */
export function userMessageId(request: RecordedRequest): string {
  const messages = request.body['messages'] as Array<{ role: string; content: string }>;
  const data = messages.at(-1)!.content.replace(/^<data>\n|\n<\/data>$/g, '');
  const quoted = JSON.parse(data) as { newMessages: Array<{ id: string; role: string }> };
  return quoted.newMessages.find((message) => message.role === 'user')!.id;
}
