import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/modules/connections/sql/data-source-options.js';
import { sqliteHandle } from '../../src/modules/connections/sql/sqlite-handle.js';
import { tempDir } from '../support/test-databases.js';

/** `PRAGMA synchronous` of a package DataSource opened on `path` (2 is FULL, 1 NORMAL). */
async function synchronousOn(path: string): Promise<number> {
  const dataSource = new DataSource(buildDataSourceOptions({ dialect: 'sqlite', path }));
  await dataSource.initialize();
  try {
    return sqliteHandle(dataSource).pragma('synchronous', { simple: true }) as number;
  } finally {
    await dataSource.destroy();
  }
}

describe('SQLite DataSources the package opens', () => {
  it('sync every commit (FULL) on a new file and on a WAL file opened again', async () => {
    const path = join(tempDir(), 'durable.sqlite');
    expect(await synchronousOn(path)).toBe(2);
    // The file is in WAL mode now: SQLite's build default would open it with NORMAL.
    expect(await synchronousOn(path)).toBe(2);
  });
});
