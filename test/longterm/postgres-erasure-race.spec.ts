import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';

/**
 * An erasure racing a flush that is already writing (its transaction open) on PostgreSQL: the
 * erasure waits for it, and the flushed row does not outlive the erasure.
 */
describe('PostgreSQL: erasure against a flush in flight', () => {
  const registry = new ConnectionRegistry();
  let store: PostgresLongtermStore;
  const flush = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  beforeAll(async () => {
    const { value: connection } = await registry.acquireSql(
      { dialect: 'postgres', url: TEST_POSTGRES_URL },
      { migrationsRun: true, schema: LONGTERM_SCHEMA },
    );
    store = new PostgresLongtermStore(connection.dataSource);
    await flush.connect();
  });
  afterAll(async () => {
    await flush.end();
    await registry.onApplicationShutdown();
  });

  it('waits for the flush, then erases what it wrote', async () => {
    const entityId = `race-${Date.now()}`;
    await store.save({ entityId, key: 'name', value: 'Ada', seq: 5 });
    // A flush mid-way: inside its transaction it took the entity's write lock (shared, as every
    // store write does) and wrote a new key, not yet committed.
    await flush.query('BEGIN');
    await flush.query('SELECT pg_advisory_xact_lock_shared(1819568500, hashtext($1))', [entityId]);
    await flush.query(
      `INSERT INTO agent_longterm_records (entity_id, key, value, seq, updated_at, expires_at)
       VALUES ($1, 'email', '"ada@example.com"', 5, 1, 9007199254740991)`,
      [entityId],
    );
    let erased = false;
    const erasure = store.deleteEntity(entityId).then(() => (erased = true));
    await sleep(300);
    expect(erased).toBe(false); // it waits for the flush in flight
    await flush.query('COMMIT');
    await erasure;
    expect(await store.search(entityId, '', 10)).toEqual([]);
    expect(await store.save({ entityId, key: 'email', value: 'x', seq: 5 })).toEqual({
      applied: false,
    });
    await store.deleteEntity(entityId);
  });
  it('makes a flush wait while an erasure holds the entity', async () => {
    const entityId = `race-wait-${Date.now()}`;
    await flush.query('BEGIN');
    await flush.query('SELECT pg_advisory_xact_lock(1819568500, hashtext($1))', [entityId]);
    let saved = false;
    const save = store.save({ entityId, key: 'k', value: 1, seq: 1 }).then(() => (saved = true));
    await sleep(300);
    expect(saved).toBe(false);
    await flush.query('COMMIT');
    await save;
    expect((await store.load(entityId, 'k'))?.value).toBe(1);
    await store.deleteEntity(entityId);
  });
});
