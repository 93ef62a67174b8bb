import { InvalidArgumentError } from '../common/errors/invalid-argument.error.js';
import { InvalidMessageError } from '../common/messages/invalid-message.error.js';
import type { ChatMessage } from '../common/messages/chat-message.interface.js';
import type { ChatMemoryStore } from '../modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { type ConformanceHooks, rejectionOf } from './conformance-hooks.js';
import { texts } from './conformance-messages.js';

/**
 * The bad-input cases of the `ChatMemoryStore` conformance suite: every malformed batch or argument
 * is refused with a clear error before any write, so the conversation is left as it was.
 */
export function registerBadInputConformance(
  hooks: ConformanceHooks,
  { store, newId }: { store(): Promise<ChatMemoryStore>; newId(label: string): string },
): void {
  const { describe, it, expect } = hooks;
  describe('bad input', () => {
    const badBatches: Array<[string, unknown]> = [
      ['a non-array', { role: 'user', content: 'x' }],
      ['an unknown role', [{ role: 'robot', content: 'x' }]],
      ['a tool message without toolCallId', [{ role: 'tool', content: 'x' }]],
      ['content that is neither string nor null', [{ role: 'user', content: 42 }]],
      ['missing content', [{ role: 'user' }]],
      ['an id over 255 bytes', [{ id: 'é'.repeat(128), role: 'user', content: 'x' }]],
      ['an empty id', [{ id: '', role: 'user', content: 'x' }]],
      ['an id with a lone surrogate', [{ id: 'a\uD800', role: 'user', content: 'x' }]],
      ['U+0000 in content', [{ role: 'user', content: 'a\u0000b' }]],
      ['U+0000 in metadata', [{ role: 'user', content: 'a', metadata: { k: 'v\u0000' } }]],
      ['U+0000 in a name', [{ role: 'user', content: 'a', name: 'n\u0000' }]],
      ['U+0000 in a toolCallId', [{ role: 'tool', content: 'a', toolCallId: 'c\u0000' }]],
      [
        'U+0000 in tool call arguments',
        [
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'c', name: 'n', arguments: '{"a":"\u0000"}' }],
          },
        ],
      ],
      [
        'a tool call without arguments text',
        [
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'c', name: 'n', arguments: {} }],
          },
        ],
      ],
      ['an unknown field', [{ role: 'user', content: 'x', extra: 1 }]],
      [
        'a duplicate id in one batch',
        [
          { id: 'd', role: 'user', content: '1' },
          { id: 'd', role: 'user', content: '2' },
        ],
      ],
    ];
    for (const [label, batch] of badBatches) {
      it(`rejects ${label} with InvalidMessageError and writes nothing`, async () => {
        const s = await store();
        const c = newId('bad');
        await s.add(c, [{ id: 'keep', role: 'user', content: 'kept' }]);
        // A valid message first: the whole batch must be refused, not just the bad message.
        const input = Array.isArray(batch) ? [{ role: 'user', content: 'valid' }, ...batch] : batch;
        const error = await rejectionOf(s.add(c, input as ChatMessage[]));
        expect(error).toBeInstanceOf(InvalidMessageError);
        expect((await s.get(c)).map((m) => m.id)).toEqual(['keep']);
      });
    }

    it('rejects bad conversation ids and arguments with InvalidArgumentError', async () => {
      const s = await store();
      const c = newId('bad-args');
      for (const conversationId of [
        '',
        'x'.repeat(256),
        'a\u0000b',
        'a\uD800', // a lone surrogate: UTF-8 would turn it into U+FFFD, merging ids
        7 as unknown as string,
      ]) {
        expect(await rejectionOf(s.add(conversationId, texts('x')))).toBeInstanceOf(
          InvalidArgumentError,
        );
        expect(await rejectionOf(s.get(conversationId))).toBeInstanceOf(InvalidArgumentError);
      }
      expect(await rejectionOf(s.add(c, texts('x'), { expectedVersion: -1 }))).toBeInstanceOf(
        InvalidArgumentError,
      );
      expect(await rejectionOf(s.tail(c, -1))).toBeInstanceOf(InvalidArgumentError);
      expect(await rejectionOf(s.tail(c, 1.5))).toBeInstanceOf(InvalidArgumentError);
      expect(await rejectionOf(s.range(c, -1, 5))).toBeInstanceOf(InvalidArgumentError);
      expect(await rejectionOf(s.range(c, 0, Number.NaN))).toBeInstanceOf(InvalidArgumentError);
      expect(await s.version(c)).toBe(0);
    });
  });
}
