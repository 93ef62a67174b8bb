import { afterAll, describe, expect, it } from '@jest/globals';
import { InMemoryLongtermStore } from '../../src/modules/longterm/backends/in-memory.longterm.store.js';
import { runLongtermStoreConformance } from '../../src/testing/index.js';

runLongtermStoreConformance(
  'memory',
  async (clock) => ({
    subject: new InMemoryLongtermStore({ now: clock.now }),
    close: async () => undefined,
  }),
  { describe, it, expect, afterAll },
  { durable: false, sharedAcrossInstances: false },
);
