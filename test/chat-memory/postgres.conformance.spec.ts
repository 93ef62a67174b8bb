import { afterAll, describe, expect, it } from '@jest/globals';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

runChatMemoryStoreConformance(
  'postgres',
  () => openChatMemoryModule({ backend: 'postgres', url: TEST_POSTGRES_URL }),
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);
