// examples/custom-store.conformance.spec.ts
import { afterAll, describe, expect, it } from '@jest/globals';
import { type ChatMemoryStore, InMemoryChatMemoryStore } from 'nest-agent-memory';
import { runChatMemoryStoreConformance } from 'nest-agent-memory/testing';

/** Your own backend: here, one that counts writes and delegates the storage. */
class CountingStore extends InMemoryChatMemoryStore implements ChatMemoryStore {
  writes = 0;

  override async add(...args: Parameters<ChatMemoryStore['add']>) {
    this.writes += 1;
    return super.add(...args);
  }
}

runChatMemoryStoreConformance(
  'CountingStore',
  async () => ({ subject: new CountingStore(), close: async () => undefined }),
  { describe, it, expect, afterAll },
  { durable: false, sharedAcrossInstances: false },
);
