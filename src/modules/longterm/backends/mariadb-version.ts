import type { DataSource } from 'typeorm';
import { UnsupportedDatabaseError } from '../../../common/errors/unsupported-database.error.js';

const REQUIREMENT =
  'MariaDB ≥ 10.5 (INSERT … RETURNING gives each row’s verdict in one statement); MySQL has no ' +
  'INSERT … RETURNING. Use MariaDB, PostgreSQL, SQLite or Redis for long-term memory';

/**
 * Refuses a server the long-term store cannot run on, from its `VERSION()` string: MariaDB ≥ 10.5
 * passes; MySQL (any version) and older MariaDB fail with `UnsupportedDatabaseError`.
 */
export function assertLongtermServer(version: string): void {
  // Some servers prefix the real version with "5.5.5-" for old clients.
  const match = /^(\d+)\.(\d+)\.\d+.*MariaDB/i.exec(version.replace(/^5\.5\.5-/, ''));
  const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!match || major < 10 || (major === 10 && minor < 5))
    throw new UnsupportedDatabaseError('The long-term store (mysql://)', version, REQUIREMENT);
}

/** Asks the server its version and checks it with {@link assertLongtermServer}. */
export async function checkLongtermServer(dataSource: DataSource): Promise<void> {
  const [row] = (await dataSource.query('SELECT VERSION() AS version')) as [{ version: string }];
  assertLongtermServer(String(row.version));
}
