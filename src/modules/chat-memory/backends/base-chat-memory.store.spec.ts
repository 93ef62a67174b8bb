import { describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { rejectionOf } from '../../../testing/conformance-hooks.js';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

/** A backend that records every call it gets: the subject here is the validation in front of it. */
class RecordingStore extends BaseChatMemoryStore {
  protected readonly system = 'memory' as const;
  readonly calls: string[] = [];
  protected async appendBatch(_c: string, messages: PreparedMessage[]): Promise<AppendOutcome> {
    this.calls.push('append');
    return { conflict: false, version: messages.length };
  }
  protected async readAll(): Promise<string[]> {
    this.calls.push('readAll');
    return [];
  }
  protected async readTail(): Promise<string[]> {
    this.calls.push('readTail');
    return [];
  }
  protected async readRange(): Promise<string[]> {
    this.calls.push('readRange');
    return [];
  }
  protected async readVersion(): Promise<number> {
    this.calls.push('readVersion');
    return 0;
  }
  protected async removeConversation(): Promise<void> {
    this.calls.push('remove');
  }
}

describe('BaseChatMemoryStore', () => {
  it('rejects bad input before reaching the backend', async () => {
    const store = new RecordingStore();
    const bad: Array<() => Promise<unknown>> = [
      () => store.add('', [{ role: 'user', content: 'x' }]),
      () => store.add('c', 'nope' as unknown as ChatMessage[]),
      () =>
        store.add('c', [
          { role: 'user', content: 'ok' },
          { role: 'tool', content: 'x' },
        ]),
      () => store.add('c', [{ role: 'user', content: 'x' }], { expectedVersion: 1.5 }),
      () =>
        store.add('c', [
          {
            role: 'user',
            content: 'x',
            metadata: { n: 10n } as unknown as Record<string, unknown>,
          },
        ]),
      () =>
        store.add('c', [{ role: 'user', content: 'x', metadata: { n: Number.POSITIVE_INFINITY } }]),
      () => store.get('x'.repeat(300)),
      () => store.tail('c', -2),
      () => store.range('c', 0, -1),
      () => store.clear(''),
      () => store.version(''),
    ];
    for (const call of bad) expect(await rejectionOf(call())).toBeInstanceOf(InvalidArgumentError);
    expect(store.calls).toEqual([]);
  });

  it('names the argument at fault', async () => {
    const error = (await rejectionOf(
      new RecordingStore().add('c', [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, toolCalls: [{ id: '', name: 'n', arguments: '{}' }] },
      ]),
    )) as InvalidArgumentError;
    expect(error.argument).toBe('messages[1].toolCalls[0].id');
    expect(error.message).toContain('messages[1].toolCalls[0].id');
  });

  it('answers n = 0 and limit = 0 without I/O', async () => {
    const store = new RecordingStore();
    expect(await store.tail('c', 0)).toEqual([]);
    expect(await store.range('c', 3, 0)).toEqual([]);
    expect(store.calls).toEqual([]);
  });
});
