import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { runPackageMigrations } from '../../src/modules/connections/migrations/migration-runner.js';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { TextAnalyzer } from '../../src/modules/longterm/recall/text-analyzer.js';
import { LONGTERM_MYSQL_MIGRATIONS } from '../../src/modules/longterm/schema/mysql.migrations.js';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';

/**
 * MariaDB's text index writes only what a save changes: every write to its terms table is counted
 * by triggers of this test's own database.
 */
describe('MariaDB long-term store: term writes', () => {
  let fresh: FreshDatabase;
  let maria: DataSource;
  let store: MysqlLongtermStore;

  beforeAll(async () => {
    fresh = await createFreshDatabase('mysql');
    maria = await new DataSource({ type: 'mysql', url: fresh.url }).initialize();
    await runPackageMigrations(maria, 'mysql', LONGTERM_MYSQL_MIGRATIONS);
    await maria.query('CREATE TABLE term_writes (kind VARCHAR(8) NOT NULL, n INT NOT NULL)');
    await maria.query("INSERT INTO term_writes VALUES ('insert', 0), ('update', 0), ('delete', 0)");
    for (const [event, kind] of [
      ['INSERT', 'insert'],
      ['UPDATE', 'update'],
      ['DELETE', 'delete'],
    ])
      await maria.query(
        `CREATE TRIGGER count_term_${kind} AFTER ${event} ON agent_longterm_terms
          FOR EACH ROW UPDATE term_writes SET n = n + 1 WHERE kind = '${kind}'`,
      );
    // The stemmer off, so that a record's terms are its words.
    store = new MysqlLongtermStore(maria, { analyzer: new TextAnalyzer({ stemmer: 'none' }) });
  });

  afterAll(async () => {
    await maria?.destroy();
    await fresh?.drop();
  });

  /** The term writes since the last call. */
  let counted = { insert: 0, update: 0, delete: 0 };
  async function writes(): Promise<typeof counted> {
    const rows = (await maria.query('SELECT kind, n FROM term_writes')) as Array<{
      kind: keyof typeof counted;
      n: number;
    }>;
    const now = { insert: 0, update: 0, delete: 0 };
    for (const row of rows) now[row.kind] = Number(row.n);
    const since = {
      insert: now.insert - counted.insert,
      update: now.update - counted.update,
      delete: now.delete - counted.delete,
    };
    counted = now;
    return since;
  }
  /** The keys of entity `entityId`'s records that a text search finds. */
  const found = async (
    entityId: string,
    query: string,
    options: { updatedFrom?: number; updatedTo?: number } = {},
  ) => (await store.searchText(entityId, query, options)).map((hit) => hit.record.key);

  /** Saves `records` of entity `entityId` as a test's starting point; their writes are not counted. */
  async function given(
    entityId: string,
    records: Array<{ key: string; value: string; seq: number; updatedAt: number }>,
  ): Promise<void> {
    await store.saveMany(records.map((record) => ({ entityId, ...record })));
    await writes();
  }

  it('writes a record’s terms once, and none when it is saved again with its text', async () => {
    await writes();
    await store.saveMany([
      { entityId: 'e1', key: 'a', value: 'kayak kayak river', seq: 1, updatedAt: 1_000 },
      { entityId: 'e1', key: 'b', value: 'river delta', seq: 1, updatedAt: 1_000 },
    ]);
    expect(await writes()).toEqual({ insert: 4, update: 0, delete: 0 });
    await store.saveMany([
      { entityId: 'e1', key: 'a', value: 'kayak kayak river', seq: 2, updatedAt: 2_000 },
      { entityId: 'e1', key: 'b', value: 'river delta', seq: 2, updatedAt: 2_000 },
    ]);
    expect(await writes()).toEqual({ insert: 0, update: 0, delete: 0 });
    expect((await found('e1', 'river')).sort()).toEqual(['a', 'b']);
    // A search by update time reads the records' own: both were saved again at 2,000.
    expect(await found('e1', 'river', { updatedTo: 2_000 })).toEqual([]);
    expect((await found('e1', 'river', { updatedFrom: 2_000 })).sort()).toEqual(['a', 'b']);
    expect(await found('e1', 'kayak', { updatedFrom: 1_500, updatedTo: 2_500 })).toEqual(['a']);
  });

  it('replaces the terms of a record whose text (or a word’s count) changed, and only its', async () => {
    await given('e2', [
      { key: 'a', value: 'kayak kayak river', seq: 2, updatedAt: 2_000 },
      { key: 'b', value: 'river delta', seq: 2, updatedAt: 2_000 },
    ]);
    await store.saveMany([
      { entityId: 'e2', key: 'a', value: 'kayak river', seq: 3, updatedAt: 3_000 },
      { entityId: 'e2', key: 'b', value: 'river delta', seq: 3, updatedAt: 3_000 },
    ]);
    // a's two old terms out, its two new ones in (the count of "kayak" changed); b untouched.
    expect(await writes()).toEqual({ insert: 2, update: 0, delete: 2 });
    await store.save({ entityId: 'e2', key: 'b', value: 'lake delta', seq: 4, updatedAt: 4_000 });
    expect(await writes()).toEqual({ insert: 2, update: 0, delete: 2 });
    expect(await found('e2', 'river')).toEqual(['a']);
    expect(await found('e2', 'lake')).toEqual(['b']);
  });

  it('moves only the expiry of a record saved again with its text and a new one', async () => {
    await given('e3', [{ key: 'b', value: 'lake delta', seq: 4, updatedAt: 4_000 }]);
    const now = Date.now();
    await store.save({
      entityId: 'e3',
      key: 'b',
      value: 'lake delta',
      seq: 5,
      updatedAt: now,
      ttlMs: 60_000,
    });
    expect(await writes()).toEqual({ insert: 0, update: 2, delete: 0 });
    expect(await found('e3', 'lake')).toEqual(['b']);
    // Expired (not yet swept): not found, and a save that brings it back moves its expiry again.
    await store.save({
      entityId: 'e3',
      key: 'b',
      value: 'lake delta',
      seq: 6,
      updatedAt: now - 120_000,
      ttlMs: 60_000,
    });
    expect(await writes()).toEqual({ insert: 0, update: 2, delete: 0 });
    expect(await found('e3', 'lake')).toEqual([]);
    await store.save({ entityId: 'e3', key: 'b', value: 'lake delta', seq: 7, updatedAt: now });
    expect(await writes()).toEqual({ insert: 0, update: 2, delete: 0 });
    expect(await found('e3', 'lake')).toEqual(['b']);
  });

  it('replaces the terms of a record whose rows disagree, and removes them with text search off', async () => {
    await writes();
    await store.save({ entityId: 'e4', key: 'c', value: 'canoe paddle', seq: 1, updatedAt: 5_000 });
    expect(await writes()).toEqual({ insert: 2, update: 0, delete: 0 });
    // A row left inconsistent (say, by a hand-made change): the record's terms are written anew.
    await maria.query(
      "UPDATE agent_longterm_terms SET length = 7 WHERE entity_id = 'e4' AND `key` = 'c' AND term = 'canoe'",
    );
    await writes();
    await store.save({ entityId: 'e4', key: 'c', value: 'canoe paddle', seq: 2, updatedAt: 6_000 });
    expect(await writes()).toEqual({ insert: 2, update: 0, delete: 2 });
    expect(
      await maria.query("SELECT DISTINCT length FROM agent_longterm_terms WHERE `key` = 'c'"),
    ).toEqual([{ length: 2 }]);
    // Text search off: the record's earlier terms go, none are written.
    const off = new MysqlLongtermStore(maria, { analyzer: TextAnalyzer.off });
    await off.save({ entityId: 'e4', key: 'c', value: 'canoe paddle', seq: 3, updatedAt: 7_000 });
    expect(await writes()).toEqual({ insert: 0, update: 0, delete: 2 });
    expect(await found('e4', 'canoe')).toEqual([]);
  });

  it('removes the terms of a deleted record, and writes none for a save that does not apply', async () => {
    await given('e5', [{ key: 'a', value: 'kayak river', seq: 3, updatedAt: 3_000 }]);
    await store.save({ entityId: 'e5', key: 'a', value: 'lake', seq: 1, updatedAt: 9_000 });
    expect(await writes()).toEqual({ insert: 0, update: 0, delete: 0 });
    await store.delete('e5', 'a', 8);
    expect(await writes()).toEqual({ insert: 0, update: 0, delete: 2 });
    expect(await found('e5', 'kayak')).toEqual([]);
  });
});
