import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, QueryRunner } from 'typeorm';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';
import { TEST_MYSQL_URL } from '../support/test-databases.js';

/**
 * An erasure racing a save that is already writing (its transaction open) on MariaDB: the erasure
 * waits for it before it reads the mark, so the saved row is erased and its seq lies at or below
 * the mark. Read without waiting, the mark would miss the save (still uncommitted), the delete would
 * then wait for it and remove it, and a replay of that save would be stored again after the erasure.
 */
describe('MariaDB: erasure against a save in flight', () => {
  const registry = new ConnectionRegistry();
  let dataSource: DataSource;
  let store: MysqlLongtermStore;
  let save: QueryRunner;
  beforeAll(async () => {
    const { value: connection } = await registry.acquireSql(
      { dialect: 'mysql', url: TEST_MYSQL_URL },
      { migrationsRun: true, schema: LONGTERM_SCHEMA },
    );
    dataSource = connection.dataSource;
    store = new MysqlLongtermStore(dataSource);
    save = dataSource.createQueryRunner();
    await save.connect();
  });
  afterAll(async () => {
    if (save.isTransactionActive) await save.rollbackTransaction(); // a failed case's
    await save.release();
    await registry.onApplicationShutdown();
  });

  /** Until a transaction waits for a lock the `save` connection's transaction holds (at most 10 s). */
  async function untilWaitingForSave(): Promise<void> {
    const [{ id }] = (await save.query('SELECT CONNECTION_ID() AS id')) as [{ id: number }];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(10)) {
      const [{ n }] = (await dataSource.query(
        `SELECT COUNT(*) AS n FROM information_schema.INNODB_LOCK_WAITS w
          JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id
          WHERE b.trx_mysql_thread_id = ?`,
        [id],
      )) as [{ n: string | number }];
      if (Number(n) > 0) return;
    }
    throw new Error('nothing waited for the save within 10 s');
  }

  it('waits for the save, then erases it with a mark at or above its seq', async () => {
    const entityId = `maria-race-${process.pid}-${Date.now()}`;
    await store.save({ entityId, key: 'name', value: 'Ada', seq: 5 });
    // A save mid-way: inside its transaction it wrote a new key with a higher seq, not yet committed.
    await save.startTransaction();
    await save.query(
      `INSERT INTO agent_longterm_records
        (entity_id, \`key\`, value, seq, updated_at, expires_at, embedding, embedding_model)
       VALUES (?, 'email', '"ada@example.com"', 7, 1, 9007199254740991, '', '')`,
      [entityId],
    );
    let erased = false;
    const erasure = store.deleteEntity(entityId).then(
      () => (erased = true),
      (error: unknown) => error,
    );
    await untilWaitingForSave();
    expect(erased).toBe(false);
    await save.commitTransaction();
    expect(await erasure).toBe(true);
    expect(await store.search(entityId, '', 10)).toEqual([]);
    // The erased save, replayed, stays erased: its seq is at or below the mark.
    expect(await store.save({ entityId, key: 'email', value: 'ada@example.com', seq: 7 })).toEqual({
      applied: false,
    });
    expect(await store.load(entityId, 'email')).toBeNull();
    // A save above the mark is stored.
    expect(await store.save({ entityId, key: 'email', value: 'new', seq: 8 })).toEqual({
      applied: true,
    });
    await store.deleteEntity(entityId);
  });
});
