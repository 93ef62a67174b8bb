import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { runLongtermStoreConformance } from '../../src/testing/index.js';
import {
  type PgvectorServer,
  pgvectorStore,
  startPgvectorServer,
} from '../support/pglite-server.js';

/**
 * The long-term store conformance suite on PostgreSQL with pgvector: PGlite (PostgreSQL 18 in
 * WebAssembly) with its pgvector build, over the wire, since pgvector is not packaged for the
 * test machine's PostgreSQL. Vectors are ranked by pgvector there, through an HNSW index.
 */
let server: PgvectorServer;
beforeAll(async () => {
  server = await startPgvectorServer();
}, 60_000);

runLongtermStoreConformance(
  'postgres + pgvector (PGlite)',
  async (clock) => {
    const registry = new ConnectionRegistry();
    const store = (await pgvectorStore(registry, server.url, 2)).store({ now: clock.now });
    expect(store.usesPgvector).toBe(true);
    return { subject: store, close: () => registry.onApplicationShutdown() };
  },
  { describe, it, expect, afterAll },
  // One instance: a second one's connection would meet the first one's prepared statements in
  // PGlite's one session. Durability and sharing are the PostgreSQL store's, checked on the server.
  { durable: false, sharedAcrossInstances: false },
);

// After the suite's own afterAll (registered above), which erases what it wrote.
afterAll(async () => {
  await server.stop();
});
