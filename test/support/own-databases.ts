import { afterAll, beforeAll } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type FreshDatabase, createFreshDatabase } from './fresh-database.js';
import { longtermUris } from './test-databases.js';

/**
 * The long-term tier's five backends as `longtermUris` gives them, with PostgreSQL and MariaDB each
 * in a database of the calling file's own (made before its tests, dropped after them) and Redis under
 * `redisPrefix` plus a random part. For files whose assertions rest on a pass over a whole store —
 * the background embedding gives a vector of its model to every row without one — which other
 * files' rows in the shared test database would make slower with every run and change under it.
 * Registers the `beforeAll`/`afterAll` that make and drop the databases: call it at a file's top.
 */
export function longtermUrisOfOwnDatabases(
  sqliteFile: string,
  redisPrefix: string,
): { uris: Array<[string, () => string]>; keyPrefix: string } {
  const own: { postgres?: FreshDatabase; mysql?: FreshDatabase } = {};
  beforeAll(async () => {
    [own.postgres, own.mysql] = await Promise.all([
      createFreshDatabase('postgres'),
      createFreshDatabase('mysql'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([own.postgres?.drop(), own.mysql?.drop()]);
  });
  const urlOf = (database: FreshDatabase | undefined) => {
    if (!database) throw new Error('the own databases are made in beforeAll');
    return database.url;
  };
  const uris = longtermUris(sqliteFile).map(([label, uri]): [string, () => string] => {
    if (label === 'PostgreSQL') return [label, () => urlOf(own.postgres)];
    if (label === 'MariaDB') return [label, () => urlOf(own.mysql)];
    return [label, uri];
  });
  return { uris, keyPrefix: `${redisPrefix}${randomBytes(4).toString('hex')}:` };
}
