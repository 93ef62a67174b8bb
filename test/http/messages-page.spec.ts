import { describe, expect, it } from '@jest/globals';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import type { ChatPageOptions } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import {
  MessagesPageAnswer,
  readMessagesPage,
} from '../../src/modules/http/controllers/messages-page.js';
import { JSON_TEXT } from '../../src/modules/http/platform/json-text-answer.js';
import { withoutPage } from '../support/store-without-page.js';

const all: ChatPageOptions = { count: 10, maxBytes: 1_000_000 };

async function storeWith(contents: string[]): Promise<InMemoryChatMemoryStore> {
  const store = new InMemoryChatMemoryStore();
  await store.add(
    'c',
    contents.map((content) => ({ role: 'user' as const, content, metadata: { secret: content } })),
  );
  return store;
}

describe('the messages route: its page from any store', () => {
  it('reads a store with only page, or with neither, and serializes what it returns', async () => {
    const full = await storeWith(['a', 'b', 'c']);
    const expected = await full.pageJson('c', { count: 2, maxBytes: 1_000_000 });
    const onlyPage: ChatMemoryStore = {
      ...withoutPage(full),
      page: (id, options) => full.page(id, options),
    };
    const neither: ChatMemoryStore = withoutPage(full);
    for (const store of [onlyPage, neither])
      expect(await readMessagesPage(store, 'c', { count: 2, maxBytes: 1_000_000 })).toEqual(
        expected,
      );
  });

  it("sends what a subclass's page returns, not the stored JSON it overrides", async () => {
    class Redacting extends InMemoryChatMemoryStore {
      override async page(id: string, options: ChatPageOptions) {
        const page = await super.page(id, options);
        return { ...page, messages: page.messages.map(({ metadata: _, ...kept }) => kept) };
      }
    }
    const store = new Redacting();
    await store.add('c', [{ role: 'user', content: 'x', metadata: { ssn: '123' } }]);
    const page = await readMessagesPage(store, 'c', all);
    expect(page.messagesJson).not.toContain('ssn');
    expect(JSON.parse(page.messagesJson)).toEqual([expect.objectContaining({ content: 'x' })]);
  });
});

describe('MessagesPageAnswer: one answer, as an object and as JSON text', () => {
  it('is the same JSON either way, fields in the documented order, before only past the start', async () => {
    const store = await storeWith(['a', 'b "quoted"', '\u2028 😀']);
    for (const options of [all, { count: 1, maxBytes: 1_000_000 }]) {
      const answer = new MessagesPageAnswer('c', await store.pageJson('c', options));
      expect(answer[JSON_TEXT]()).toBe(JSON.stringify(answer));
      expect(JSON.stringify({ data: answer })).toBe(`{"data":${answer[JSON_TEXT]()}}`);
    }
    const first = new MessagesPageAnswer('c', await store.pageJson('c', all));
    expect(Object.keys(first)).toEqual(['conversationId', 'version', 'messages']);
    const later = new MessagesPageAnswer('c', await store.pageJson('c', { count: 1, maxBytes: 9 }));
    expect(Object.keys(later)).toEqual(['conversationId', 'version', 'messages', 'before']);
    expect({ ...later }).toMatchObject({
      version: 3,
      before: 3,
      messages: [{ content: '\u2028 😀' }],
    });
  });

  it('refuses a malformed page instead of sending it', () => {
    for (const page of [
      { version: Number.NaN, messagesJson: '[]', from: 0 },
      { version: 1, messagesJson: '[]', from: '3' as unknown as number },
      { version: 1, messagesJson: '{"a":1}', from: 0 },
      { version: -1, messagesJson: '[]', from: 0 },
    ])
      expect(() => new MessagesPageAnswer('c', page)).toThrow(/malformed page/);
  });
});
