// The conformance suite under Vitest: `vitest run` (Jest and Vitest hooks fit as they are).
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryChatMemoryStore } from 'nest-agent-memory';
import { runChatMemoryStoreConformance } from 'nest-agent-memory/testing';

runChatMemoryStoreConformance(
  'InMemoryChatMemoryStore under Vitest',
  async () => ({ subject: new InMemoryChatMemoryStore(), close: async () => undefined }),
  { describe, it, expect, afterAll },
  { durable: false, sharedAcrossInstances: false },
);
