import { afterAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { tempDir } from '../support/test-databases.js';

const path = join(tempDir(), 'conformance.sqlite');

runChatMemoryStoreConformance(
  'sqlite (file)',
  () => openChatMemoryModule({ backend: 'sqlite', path }),
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);

runChatMemoryStoreConformance(
  'sqlite (:memory:)',
  () => openChatMemoryModule({ backend: 'sqlite', path: ':memory:' }),
  { describe, it, expect, afterAll },
  { durable: false, sharedAcrossInstances: false },
);
