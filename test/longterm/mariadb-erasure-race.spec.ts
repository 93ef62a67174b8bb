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

  /**
   * Until the erasure of `entityId` waits for a lock (at most 10 s): InnoDB's status lists its
   * transaction (its statement names the entity) in `LOCK WAIT`. Read from the lock system itself:
   * `information_schema.INNODB_LOCK_WAITS` does not always list a waiting transaction that has not
   * written yet (seen: a statement blocked for 10 s, its transaction `RUNNING`, no wait listed).
   */
  async function untilErasureWaits(entityId: string): Promise<void> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(10)) {
      const [{ Status }] = (await dataSource.query('SHOW ENGINE INNODB STATUS')) as [
        { Status: string },
      ];
      const transactions = Status.split('\n---TRANSACTION ');
      if (transactions.some((trx) => trx.includes('LOCK WAIT') && trx.includes(entityId))) return;
    }
    throw new Error(`the erasure did not wait within 10 s: ${await serverState()}`);
  }

  /** What the server's sessions and transactions were doing (for a failure's message). */
  async function serverState(): Promise<string> {
    const sessions = await dataSource.query(
      `SELECT ID, COMMAND, TIME, STATE, LEFT(INFO, 160) AS INFO FROM information_schema.PROCESSLIST
        WHERE DB = DATABASE() AND COMMAND <> 'Sleep'`,
    );
    const transactions = await dataSource.query(
      `SELECT trx_id, trx_state, trx_started, trx_mysql_thread_id, LEFT(trx_query, 160) AS query
        FROM information_schema.INNODB_TRX`,
    );
    const waits = await dataSource.query('SELECT * FROM information_schema.INNODB_LOCK_WAITS');
    return JSON.stringify({ sessions, transactions, waits });
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
    await untilErasureWaits(entityId);
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
