import type { ChatMessage } from '../common/messages/chat-message.interface.js';
import { MAX_INLINE_PART_BYTES } from '../common/messages/content-parts.js';
import { InvalidMessageError } from '../common/messages/invalid-message.error.js';
import type { ChatMemoryStore } from '../modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { type ConformanceHooks, rejectionOf } from './conformance-hooks.js';

/** Base64 of `bytes` bytes (the bytes cycle through every value, so nothing compresses away). */
function base64Of(bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 1) buffer[i] = (i * 31 + 7) % 256;
  return buffer.toString('base64');
}

/**
 * The content-parts cases of the `ChatMemoryStore` conformance suite: every part type comes back
 * exactly as written (the same JSON, byte for byte), inline data at the limit is stored and one
 * byte over it is refused before any write, and malformed parts are refused naming the field.
 */
export function registerContentPartsConformance(
  hooks: ConformanceHooks,
  store: () => Promise<ChatMemoryStore>,
  newId: (label: string) => string,
): void {
  const { describe, it, expect } = hooks;
  describe('content parts', () => {
    it('returns every part type exactly as written', async () => {
      const s = await store();
      const c = newId('parts');
      const messages: ChatMessage[] = [
        {
          id: 'u1',
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these? 🦄' },
            { type: 'image', url: 'https://example.com/cat.png?size=large&x=%20' },
            { type: 'image', data: base64Of(301), mediaType: 'image/png' },
            { type: 'file', url: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
            {
              type: 'file',
              data: base64Of(64),
              mediaType: 'text/csv; charset=utf-8',
              filename: 'données.csv',
            },
          ],
        },
        {
          id: 'a1',
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'Two pictures, two files.',
              providerMetadata: { anthropic: { signature: 'c2lnbmF0dXJl' } },
            },
            { type: 'reasoning', text: '' },
            { type: 'text', text: 'A cat.' },
          ],
          toolCalls: [{ id: 'c1', name: 'look', arguments: '{"n":1}' }],
        },
        { id: 't1', role: 'tool', content: [{ type: 'text', text: 'seen' }], toolCallId: 'c1' },
      ];
      await s.add(c, messages);
      const stored = await s.get(c);
      expect(stored).toEqual(messages);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(messages));
    });

    it('stores inline data at the limit and refuses one byte more, writing nothing', async () => {
      const s = await store();
      const c = newId('parts-limit');
      const atLimit: ChatMessage = {
        id: 'big',
        role: 'user',
        content: [
          { type: 'text', text: 'big' },
          { type: 'file', data: base64Of(MAX_INLINE_PART_BYTES), mediaType: 'application/pdf' },
        ],
      };
      await s.add(c, [atLimit]);
      const [stored] = await s.get(c);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(atLimit));
      const over = await rejectionOf(
        s.add(c, [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'too big' },
              { type: 'image', data: base64Of(MAX_INLINE_PART_BYTES + 1), mediaType: 'image/png' },
            ],
          },
        ]),
      );
      expect(over).toBeInstanceOf(InvalidMessageError);
      expect((over as InvalidMessageError).argument).toBe('messages[0].content[1].data');
      expect(await s.version(c)).toBe(1);
    });

    const badParts: Array<[string, unknown, string]> = [
      ['an empty array', { role: 'user', content: [] }, 'messages[0].content'],
      [
        'a part without a type',
        { role: 'user', content: [{ text: 'x' }] },
        'messages[0].content[0].type',
      ],
      [
        'an image in a system message',
        { role: 'system', content: [{ type: 'image', url: 'https://x.test/a.png' }] },
        'messages[0].content[0].type',
      ],
      [
        'reasoning in a user message',
        { role: 'user', content: [{ type: 'reasoning', text: 'x' }] },
        'messages[0].content[0].type',
      ],
      [
        'an image with both url and data',
        {
          role: 'user',
          content: [
            { type: 'image', url: 'https://x.test/a.png', data: 'AAAA', mediaType: 'image/png' },
          ],
        },
        'messages[0].content[0]',
      ],
      [
        'inline data without a media type',
        { role: 'user', content: [{ type: 'image', data: 'AAAA' }] },
        'messages[0].content[0].mediaType',
      ],
      [
        'a data: URL (inline content goes in data)',
        { role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,AAAA' }] },
        'messages[0].content[0].url',
      ],
      [
        'data that is not base64',
        { role: 'user', content: [{ type: 'file', data: 'not base64!', mediaType: 'text/plain' }] },
        'messages[0].content[0].data',
      ],
      [
        'a field parts do not have',
        { role: 'user', content: [{ type: 'text', text: 'x', cacheControl: true }] },
        'messages[0].content[0].cacheControl',
      ],
      [
        'U+0000 in a text part',
        { role: 'user', content: [{ type: 'text', text: 'a\u0000b' }] },
        'messages[0].content[0].text',
      ],
    ];
    for (const [label, message, argument] of badParts) {
      it(`refuses ${label}, naming ${argument}, writing nothing`, async () => {
        const s = await store();
        const c = newId('parts-bad');
        const error = await rejectionOf(s.add(c, [message as ChatMessage]));
        expect(error).toBeInstanceOf(InvalidMessageError);
        expect((error as InvalidMessageError).argument).toBe(argument);
        expect(await s.version(c)).toBe(0);
      });
    }
  });
}
