import { afterAll, describe, expect, it } from '@jest/globals';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

runChatMemoryStoreConformance(
  'redis',
  () => openChatMemoryModule({ backend: 'redis', url: TEST_REDIS_URL, keyPrefix: 'test:chat:' }),
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);
