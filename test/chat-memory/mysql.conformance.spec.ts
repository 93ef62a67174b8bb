import { afterAll, describe, expect, it } from '@jest/globals';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { TEST_MYSQL_URL } from '../support/test-databases.js';

runChatMemoryStoreConformance(
  'mysql (MariaDB)',
  () => openChatMemoryModule({ backend: 'mysql', url: TEST_MYSQL_URL }),
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);
