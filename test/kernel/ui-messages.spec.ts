import { describe, expect, it } from '@jest/globals';
import * as ai6 from 'ai';
import * as ai7 from 'ai-v7';
import type { ChatMessage } from '../../src/common/messages/chat-message.interface.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { fromUIMessages, toUIMessages } from '../../src/modules/ai-sdk/ui-messages.js';

const PNG = 'iVBORw0KGgo=';
const conversation: ChatMessage[] = [
  { id: 's', role: 'system', content: 'Be brief.' },
  {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'Weather here?' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
      {
        type: 'file',
        url: 'https://example.com/a.pdf',
        mediaType: 'application/pdf',
        filename: 'a.pdf',
      },
    ],
    metadata: { sentAt: 1 },
  },
  {
    id: 'a1',
    role: 'assistant',
    content: [
      {
        type: 'reasoning',
        text: 'Look it up.',
        providerMetadata: { anthropic: { signature: 's' } },
      },
      { type: 'text', text: 'Checking.' },
    ],
    toolCalls: [
      { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
    ],
  },
  { id: 'a1:1', role: 'tool', toolCallId: 'c1', name: 'weather', content: '{"celsius":21}' },
  { id: 'a1:2', role: 'tool', toolCallId: 'c2', name: 'weather', content: '{"celsius":25}' },
  // The next round reuses an id of the first, as some providers do.
  {
    id: 'a1:3',
    role: 'assistant',
    content: null,
    toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }],
  },
  { id: 'a1:4', role: 'tool', toolCallId: 'c1', name: 'weather', content: '{"celsius":3}' },
  { id: 'a1:5', role: 'assistant', content: 'Paris 21, Rome 25, Oslo 3.' },
  { id: 'u2', role: 'user', content: 'Thanks' },
];

describe('toUIMessages / fromUIMessages', () => {
  it('gives UIMessages the AI SDK itself validates and converts (ai 6 and 7)', async () => {
    const ui = toUIMessages(conversation);
    expect(ui.map((m) => `${m.id}:${m.role}`)).toEqual([
      's:system',
      'u1:user',
      'a1:assistant',
      'u2:user',
    ]);
    expect(ui[2]!.parts.map((p) => p.type)).toEqual([
      'step-start',
      'reasoning',
      'text',
      'tool-weather',
      'tool-weather',
      'step-start',
      'tool-weather',
      'step-start',
      'text',
    ]);
    expect(ui[2]!.parts.filter((p) => p.type === 'tool-weather').map((p) => p.output)).toEqual([
      { celsius: 21 },
      { celsius: 25 },
      { celsius: 3 },
    ]);
    for (const sdk of [ai6, ai7 as unknown as typeof ai6]) {
      const valid = await sdk.validateUIMessages({ messages: ui as never });
      expect(valid).toHaveLength(4);
      const model = await sdk.convertToModelMessages(valid);
      expect(model.map((m) => m.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
        'user',
      ]);
    }
  });

  it('round-trips through a store: the same messages, the same ids', async () => {
    const store = new InMemoryChatMemoryStore();
    await store.add('c', fromUIMessages(toUIMessages(conversation)));
    expect(await store.get('c')).toEqual(conversation);
  });

  it('gives a turn stored by the agent (<runId>:0 … <runId>:n) its own ids back', () => {
    const run: ChatMessage[] = [
      { id: 'r1:0', role: 'user', content: 'Weather?' },
      {
        id: 'r1:1',
        role: 'assistant',
        content: null,
        toolCalls: [
          {
            id: 'c',
            name: 'weather',
            arguments: '{}',
            providerMetadata: { google: { thoughtSignature: 'ts' } },
          },
        ],
      },
      { id: 'r1:2', role: 'tool', toolCallId: 'c', name: 'weather', content: 'sunny' },
      { id: 'r1:3', role: 'assistant', content: 'Sunny.' },
    ];
    const ui = toUIMessages(run);
    expect(ui.map((m) => m.id)).toEqual(['r1:0', 'r1:1']);
    expect(fromUIMessages(ui)).toEqual(run);
  });

  it('reads what useChat sends: a data: URL file becomes inline data, pending calls are left out', () => {
    expect(
      fromUIMessages([
        {
          id: 'm1',
          role: 'user',
          parts: [
            { type: 'text', text: 'Look' },
            { type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${PNG}` },
          ],
        },
        {
          id: 'm2',
          role: 'assistant',
          parts: [
            { type: 'step-start' },
            { type: 'text', text: 'A cat.' },
            { type: 'tool-look', toolCallId: 'x', state: 'input-available', input: {} },
            {
              type: 'dynamic-tool',
              toolName: 'zoom',
              toolCallId: 'y',
              state: 'output-error',
              input: { z: 2 },
              errorText: 'too far',
            },
          ],
        },
      ]),
    ).toEqual([
      {
        id: 'm1',
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
      },
      {
        id: 'm2',
        role: 'assistant',
        content: 'A cat.',
        toolCalls: [{ id: 'y', name: 'zoom', arguments: '{"z":2}' }],
      },
      { id: 'm2:1', role: 'tool', toolCallId: 'y', name: 'zoom', content: '{"error":"too far"}' },
    ]);
  });
});
