import type { AgentInputItem } from '@openai/agents';

/**
 * One item of every kind a session meets, with the fields that are easy to lose in JSON: bytes,
 * `undefined`, NaN and -0 in provider data, U+0000 and a lone surrogate in text, a `__proto__` key,
 * Responses item ids and provider data.
 */
export function sampleItems(): AgentInputItem[] {
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is in this picture?' },
        { type: 'input_image', image: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
        { type: 'input_image', image: { id: 'file_123' } },
        { type: 'input_file', file: { url: 'https://example.com/a.pdf' }, filename: 'a.pdf' },
      ],
    },
    {
      id: 'rs_1',
      type: 'reasoning',
      content: [{ type: 'input_text', text: 'Thinking about the picture' }],
      rawContent: [{ type: 'reasoning_text', text: 'raw thoughts' }],
      providerData: { encrypted_content: 'gAAAA==', nan: Number.NaN, negativeZero: -0 },
    },
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      phase: 'final_answer',
      content: [
        { type: 'output_text', text: 'A cat.', providerData: { annotations: [] } },
        { type: 'refusal', refusal: 'No faces.' },
      ],
    },
    {
      id: 'fc_1',
      type: 'function_call',
      callId: 'call_1',
      name: 'lookup',
      namespace: 'crm',
      arguments: '{"q":"cat"}',
      status: 'completed',
      caller: { type: 'direct' },
    },
    {
      type: 'function_call_result',
      callId: 'call_1',
      name: 'lookup',
      status: 'completed',
      output: 'nul \u0000 and lone \ud800 surrogate',
    },
    {
      type: 'function_call_result',
      callId: 'call_2',
      name: 'render',
      status: 'completed',
      output: {
        type: 'image',
        image: { data: new Uint8Array([0, 1, 2, 253, 254, 255]), mediaType: 'image/png' },
      },
    },
    {
      type: 'function_call_result',
      callId: 'call_3',
      name: 'parts',
      status: 'incomplete',
      output: [
        { type: 'input_text', text: 'part one' },
        { type: 'input_image', image: 'https://example.com/b.png' },
      ],
    },
    {
      type: 'hosted_tool_call',
      id: 'ws_1',
      name: 'web_search_call',
      status: 'completed',
      providerData: { action: { query: 'cats' }, missing: undefined },
    },
    { type: 'compaction', encrypted_content: 'opaque', id: 'cmp_1' },
    {
      type: 'unknown',
      providerData: JSON.parse('{"__proto__":{"polluted":true},"kind":"future_item"}') as Record<
        string,
        unknown
      >,
    },
  ];
}

/** A plain user message item. */
export function userItem(text: string): AgentInputItem {
  return { role: 'user', content: text };
}
