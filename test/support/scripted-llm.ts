import type { ChatMessage } from '../../src/common/messages/chat-message.interface.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
  TokenSink,
} from '../../src/modules/llm/interfaces/llm.interface.js';

/** One scripted model answer: text, tool calls, or a failure. */
export type ScriptedAnswer =
  | { content: string; tokens?: string[] }
  | { toolCalls: Array<{ id: string; name: string; arguments: string }>; content?: string }
  | { fail: Error };

/**
 * An in-process model for kernel tests where the filters, the loop or the tools are the subject:
 * it answers from a script and records what it was sent (a copy of each request's messages).
 */
export class ScriptedLlm implements LlmAdapter {
  readonly calls: Array<{ messages: ChatMessage[]; tools: string[]; streamed: boolean }> = [];

  constructor(private readonly script: ScriptedAnswer[] = []) {}

  enqueue(...answers: ScriptedAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  async chat(request: LlmRequest): Promise<LlmResponse> {
    return this.answer(request, false);
  }

  async stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse> {
    const response = await this.answer(request, true);
    const step = this.lastStep;
    const tokens =
      step && 'tokens' in step && step.tokens
        ? step.tokens
        : typeof response.message.content === 'string' && response.message.content
          ? [response.message.content]
          : [];
    for (const token of tokens) onToken(token);
    return response;
  }

  private lastStep?: ScriptedAnswer;

  private async answer(request: LlmRequest, streamed: boolean): Promise<LlmResponse> {
    this.calls.push({
      messages: structuredClone(request.messages),
      tools: (request.tools ?? []).map((t) => t.name),
      streamed,
    });
    const step = this.script.shift();
    this.lastStep = step;
    if (!step) throw new Error('ScriptedLlm: script exhausted');
    if ('fail' in step) throw step.fail;
    const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
    if ('toolCalls' in step) {
      return {
        message: { role: 'assistant', content: step.content ?? null, toolCalls: step.toolCalls },
        usage,
        finishReason: 'tool_calls',
      };
    }
    return { message: { role: 'assistant', content: step.content }, usage, finishReason: 'stop' };
  }
}
