// examples/scripted-formation-model.ts
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

/** The data a formation call quotes in its last message, between `<data>` and `</data>`. */
function quotedData(options: LanguageModelV3CallOptions): {
  newMessages?: Array<{ id: string; role: string; text: string }>;
} {
  const parts = options.prompt.at(-1)!.content as Array<{ text?: string }>;
  const text = parts.map((part) => part.text ?? '').join('');
  return JSON.parse(text.replace(/^<data>\n|\n<\/data>$/g, ''));
}

/**
 * A formation model for tests (`formation: { model: { model: scriptedFormationModel(…) } }`): each
 * turn forms one memory, `text`, resting on the turn's user message, and every candidate is added.
 */
export function scriptedFormationModel(text: string): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      // Each step forces its own tool: record_memories, then choose_operations.
      const tool = options.toolChoice?.type === 'tool' ? options.toolChoice.toolName : '';
      const said = quotedData(options).newMessages?.find((message) => message.role === 'user');
      const input =
        tool === 'record_memories'
          ? { memories: [{ text, kind: 'fact', messageIds: [said!.id] }] }
          : { choices: [{ candidate: 0, op: 'ADD' }] };
      return {
        content: [
          { type: 'tool-call', toolCallId: tool, toolName: tool, input: JSON.stringify(input) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 20, text: 20, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}
