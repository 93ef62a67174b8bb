import { contentText } from '../../../common/messages/content-parts.js';
import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import { isMemoryContext } from '../../../common/messages/memory-context.js';
import type {
  LlmAdapter,
  LlmInfo,
  LlmRequest,
  LlmResponse,
  TokenSink,
  Usage,
} from '../interfaces/llm.interface.js';
import type { EchoLlmOptions, EchoScriptStep } from '../llm-options.js';
import { LlmAbortedError } from '../llm-errors.js';

/** How many earlier user messages the echo recalls. */
const RECALLED = 3;
/** `/tool <name> <json arguments>` in a user message makes the echo model call that tool. */
const TOOL_COMMAND = /^\/tool\s+([A-Za-z0-9_-]+)\s*([\s\S]*)$/;

/**
 * The offline, deterministic model. It answers from the conversation it is sent, so a demo shows
 * memory at work: it repeats the last user message and recalls earlier ones. With `toolCommands`
 * on, a user message `/tool <name> <json>` makes it call that tool, and once the result is back it
 * reports it (off by default: it lets anyone who can send a message run any tool). A `script`
 * replays fixed answers first. The same input always gives the same output, so replays are
 * byte-identical. Tool-call ids derive from the request's `requestId` (the reply's message id, fixed
 * across retries and replays, unique in the conversation) and the call's position.
 */
export class EchoLlmAdapter implements LlmAdapter {
  readonly info: LlmInfo = { provider: 'echo', model: 'echo' };
  private readonly script: EchoScriptStep[];
  private readonly toolCommands: boolean;

  constructor(options: Omit<EchoLlmOptions, 'provider'> = {}) {
    this.script = [...(options.script ?? [])];
    this.toolCommands = options.toolCommands ?? false;
  }

  /**
   * Answers from the request alone: the next scripted step while any is left, else the echo (or,
   * with `toolCommands`, the tool call a `/tool` message asks for). Throws `LlmAbortedError` if the
   * signal is already aborted.
   */
  async chat(request: LlmRequest): Promise<LlmResponse> {
    if (request.signal?.aborted) throw new LlmAbortedError('echo', request.signal.reason);
    const step = this.script.shift();
    const ids = (index: number) => callId(request, index);
    const message = step
      ? scripted(step, request.messages, ids, this.toolCommands)
      : echo(request.messages, ids, this.toolCommands);
    return {
      message,
      usage: usageOf(request.messages, message),
      finishReason: message.toolCalls ? 'tool_calls' : 'stop',
    };
  }

  /** Answers as `chat` does, then passes the answer's text to `onToken` word by word. */
  async stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse> {
    const response = await this.chat(request);
    for (const token of contentText(response.message.content).match(/\S+\s*|\s+/g) ?? [])
      onToken(token);
    return response;
  }
}

/** Names the `index`-th tool call of a reply. */
type CallIds = (index: number) => string;

function scripted(
  step: EchoScriptStep,
  messages: ChatMessage[],
  ids: CallIds,
  toolCommands: boolean,
): LlmResponse['message'] {
  const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? ids(index),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  if (toolCalls.length > 0) return { role: 'assistant', content: step.content ?? null, toolCalls };
  return { role: 'assistant', content: step.content ?? echo(messages, ids, toolCommands).content };
}

function echo(
  messages: ChatMessage[],
  ids: CallIds,
  toolCommands: boolean,
): LlmResponse['message'] {
  const last = messages.at(-1);
  if (last?.role === 'tool') return { role: 'assistant', content: reportToolResults(messages) };
  // What the user said: the kernel's memory-context messages are data, not the user's words.
  const users = messages.filter(
    (m) => m.role === 'user' && m.content !== null && !isMemoryContext(m),
  );
  const current = contentText(users.at(-1)?.content);
  const command = toolCommands ? TOOL_COMMAND.exec(current.trim()) : null;
  if (command) {
    const toolCall: ToolCall = {
      id: ids(0),
      name: command[1]!,
      arguments: command[2]!.trim() || '{}',
    };
    return { role: 'assistant', content: null, toolCalls: [toolCall] };
  }
  const earlier = users
    .slice(0, -1)
    .slice(-RECALLED)
    .map((m) => `"${contentText(m.content)}"`);
  const recall =
    earlier.length > 0
      ? ` Earlier you said: ${earlier.join(', ')}.`
      : ' This is the first thing you told me.';
  return { role: 'assistant', content: `You said: "${current}".${recall}` };
}

function reportToolResults(messages: ChatMessage[]): string {
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i -= 1) {
    const message = messages[i]!;
    results.unshift(`${message.name ?? message.toolCallId} returned ${message.content}`);
  }
  return `Tool results: ${results.join('; ')}.`;
}

/**
 * The id of a reply's `index`-th call: from the request's stable id when the kernel or the agent
 * gives one; called directly without it, from the length of what was sent (unique per turn only).
 */
function callId(request: LlmRequest, index: number): string {
  return `echo_call_${request.requestId ?? request.messages.length}_${index}`;
}

function usageOf(messages: ChatMessage[], reply: ChatMessage): Usage {
  const promptTokens = Math.ceil(
    messages.reduce((sum, m) => sum + (m.content?.length ?? 0), 0) / 4,
  );
  const completionTokens =
    Math.ceil((reply.content?.length ?? 0) / 4) + (reply.toolCalls?.length ?? 0);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
