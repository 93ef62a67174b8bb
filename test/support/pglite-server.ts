import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { DataSource } from 'typeorm';
import type { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { openPgvector } from '../../src/modules/longterm/backends/postgres-pgvector.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import type { LongtermStoreSettings } from '../../src/modules/longterm/backends/base-longterm.store.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';

/** A PostgreSQL with the pgvector extension, in process (PGlite), served over the wire on loopback. */
export interface PgvectorServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) with pgvector, runs `CREATE EXTENSION vector`
 * as a database owner would, and serves it on a free loopback port to up to 8 connections (PGlite
 * runs one session: the server queues their statements, keeping a transaction's together).
 */
export async function startPgvectorServer(): Promise<PgvectorServer> {
  const db = await PGlite.create({ extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A PostgreSQL long-term store on the server through `registry`, schema migrated, ranking with
 * pgvector through an HNSW index of `dimensions`, on one connection: PGlite runs one session, so
 * every connection would share (and collide on) the store's prepared statements.
 */
export async function pgvectorStore(
  registry: ConnectionRegistry,
  url: string,
  dimensions: number,
): Promise<{
  dataSource: DataSource;
  store(settings?: LongtermStoreSettings): PostgresLongtermStore;
}> {
  const { dataSource } = (
    await registry.acquireSql(
      { dialect: 'postgres', url },
      { migrationsRun: true, schema: LONGTERM_SCHEMA, poolSize: 1 },
    )
  ).value;
  const mode = await openPgvector(dataSource, { hnsw: { dimensions } });
  return { dataSource, store: (settings) => new PostgresLongtermStore(dataSource, settings, mode) };
}
