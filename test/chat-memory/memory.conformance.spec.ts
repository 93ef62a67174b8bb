import { afterAll, describe, expect, it } from '@jest/globals';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';

runChatMemoryStoreConformance(
  'memory',
  () => openChatMemoryModule({ backend: 'memory' }),
  { describe, it, expect, afterAll },
  { durable: false, sharedAcrossInstances: false },
);
