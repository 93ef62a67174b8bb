import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

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
