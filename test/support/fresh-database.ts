import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL } from './test-databases.js';

/** A throwaway database on the test server, for tests that need an empty schema. */
export interface FreshDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates an empty database next to the test database on the PostgreSQL or MariaDB server. */
export async function createFreshDatabase(dialect: 'postgres' | 'mysql'): Promise<FreshDatabase> {
  const serverUrl = dialect === 'postgres' ? TEST_POSTGRES_URL : TEST_MYSQL_URL;
  const name = `agent_memory_${randomBytes(6).toString('hex')}`;
  const admin = await new DataSource({ type: dialect, url: serverUrl }).initialize();
  const quoted = dialect === 'postgres' ? `"${name}"` : `\`${name}\``;
  await admin.query(`CREATE DATABASE ${quoted}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.query(
          `DROP DATABASE IF EXISTS ${quoted}${dialect === 'postgres' ? ' WITH (FORCE)' : ''}`,
        );
      } finally {
        await admin.destroy();
      }
    },
  };
}
