// examples/testing/node-test.conformance.test.ts
// Run with `node --test` (Node 22.18+ and 24 run .ts as it is; on Node 22.12–22.17: `node --import tsx --test`).
import * as test from 'node:test';
import { InMemoryChatMemoryStore } from 'nest-agent-memory';
import { nodeTestHooks, runChatMemoryStoreConformance } from 'nest-agent-memory/testing';

runChatMemoryStoreConformance(
  'InMemoryChatMemoryStore under node:test',
  async () => ({ subject: new InMemoryChatMemoryStore(), close: async () => undefined }),
  nodeTestHooks(test),
  { durable: false, sharedAcrossInstances: false },
);
