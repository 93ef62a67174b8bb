import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { z } from 'zod';
import type { FakeReply } from '../support/fake-llm-server.js';

/** The function tool of the runner tests: answers from its argument, so its output is checkable. */
export const weatherTool = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny and 24°C in ${city}`,
});

/** The agent of the runner tests, with the weather tool. */
export const weatherAgent = new Agent({
  name: 'Weather',
  instructions: 'Answer about the weather.',
  model: 'gpt-test',
  tools: [weatherTool],
});

/** The SDK's real runner, its OpenAI client pointed at a local server speaking the Responses API. */
export function localRunner(baseURL: string): Runner {
  return new Runner({
    modelProvider: new OpenAIProvider({ apiKey: 'test-key', baseURL, useResponses: true }),
    tracingDisabled: true,
  });
}

let responseCounter = 0;

/** A Responses API answer (non-streamed) with the given output items. */
export function responsesReply(output: Array<Record<string, unknown>>): FakeReply {
  responseCounter += 1;
  return {
    kind: 'json',
    body: {
      id: `resp_${responseCounter}`,
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-test',
      output,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}

/** An assistant message output item. */
export function messageOutput(id: string, text: string): Record<string, unknown> {
  return {
    type: 'message',
    id,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/** A reasoning output item with a summary. */
export function reasoningOutput(id: string, summary: string): Record<string, unknown> {
  return { type: 'reasoning', id, summary: [{ type: 'summary_text', text: summary }] };
}

/** A function call output item. */
export function functionCallOutput(
  id: string,
  callId: string,
  name: string,
  args: unknown,
): Record<string, unknown> {
  return {
    type: 'function_call',
    id,
    call_id: callId,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/**
 * A readable line per item of a Responses request's `input`: what the model was sent, so a test
 * can assert the history without the SDK's incidental fields.
 */
export function describeInput(input: unknown): string[] {
  const items =
    typeof input === 'string'
      ? [{ role: 'user', content: input }]
      : (input as Array<Record<string, unknown>>);
  return items.map((item) => {
    switch (item.type ?? 'message') {
      case 'message':
        return `${String(item.role)}: ${textOf(item.content)}`;
      case 'reasoning':
        return `reasoning: ${textOf(item.summary)}`;
      case 'function_call':
        return `call ${String(item.call_id)} ${String(item.name)}(${String(item.arguments)})`;
      case 'function_call_output':
        return `output ${String(item.call_id)}: ${textOf(item.output)}`;
      default:
        return `other: ${String(item.type)}`;
    }
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content.map((part: { text?: string }) => part.text ?? '').join('');
}
