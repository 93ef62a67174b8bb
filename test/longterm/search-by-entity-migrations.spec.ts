import { afterEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { runPackageMigrations } from '../../src/modules/connections/migrations/migration-runner.js';
import { SqliteLongtermStore } from '../../src/modules/longterm/backends/sqlite.longterm.store.js';
import { LONGTERM_SQLITE_MIGRATIONS } from '../../src/modules/longterm/schema/sqlite.migrations.js';
import { LONGTERM_MYSQL_MIGRATIONS } from '../../src/modules/longterm/schema/mysql.migrations.js';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { createHash } from 'node:crypto';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';
import { tempDir } from '../support/test-databases.js';

let dataSource: DataSource | undefined;
afterEach(async () => {
  await dataSource?.destroy();
  dataSource = undefined;
});

async function open(): Promise<DataSource> {
  dataSource = new DataSource({
    type: 'better-sqlite3',
    database: join(tempDir(), 'by-entity.sqlite'),
  });
  return dataSource.initialize();
}

const NEVER = Number.MAX_SAFE_INTEGER;

/** An entity's tag in the earlier MariaDB full-text index: what `LEFT(MD5(entity_id), 8)` gives. */
const entityTag = (entityId: string) =>
  createHash('md5').update(entityId, 'utf8').digest('hex').slice(0, 8);

/** The terms of the text index, through an `fts5vocab` table over it. */
async function indexedTerms(db: DataSource): Promise<Array<{ term: string; doc: number }>> {
  await db.query(
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_vocab USING fts5vocab(main, 'agent_longterm_terms', 'row')",
  );
  return db.query('SELECT term, doc FROM temp.terms_vocab ORDER BY term');
}

describe('SQLite text search partitioned by entity', () => {
  it('migrates a database of the earlier index: what it held is found, per entity, and kept up after', async () => {
    const db = await open();
    await runPackageMigrations(db, 'sqlite', LONGTERM_SQLITE_MIGRATIONS.slice(0, 2));
    const insert = `INSERT INTO agent_longterm_records
      (entity_id, key, value, seq, updated_at, expires_at, search_text) VALUES (?, ?, ?, 1, 0, ?, ?)`;
    await db.query(insert, [
      'ada',
      'job',
      '"Ada works at the mill"',
      NEVER,
      'ada works at the mill',
    ]);
    await db.query(insert, ['bo', 'job', '"Bo works at the port"', NEVER, 'bo works at the port']);
    await db.query(insert, ['bo', 'gone', '', NEVER, null]);
    expect(await runPackageMigrations(db, 'sqlite', LONGTERM_SQLITE_MIGRATIONS)).toEqual([
      'LongtermSearchByEntity1796947200000',
    ]);
    const store = new SqliteLongtermStore(db);
    const found = async (entityId: string, query: string) =>
      (await store.searchText(entityId, query)).map((hit) => hit.record.key);
    expect(await found('ada', 'works mill')).toEqual(['job']);
    expect(await found('bo', 'works port')).toEqual(['job']);
    expect(await found('ada', 'port')).toEqual([]);
    // Each entity's words sit behind its own tag: "works" is two terms of one row each.
    const terms = await indexedTerms(db);
    const works = terms.filter((entry) => entry.term.endsWith('works'));
    expect(works).toEqual([
      { term: expect.stringMatching(/^q\d+qworks$/), doc: 1 },
      { term: expect.stringMatching(/^q\d+qworks$/), doc: 1 },
    ]);
    expect(works[0]!.term).not.toBe(works[1]!.term);
    // Writes after the migration keep the index: a new value's words replace the old ones.
    await store.save({ entityId: 'ada', key: 'job', value: 'Ada bakes bread', seq: 2 });
    expect(await found('ada', 'mill')).toEqual([]);
    expect(await found('ada', 'bread')).toEqual(['job']);
    await store.delete('ada', 'job', 3);
    expect(await found('ada', 'bread')).toEqual([]);
    await store.save({ entityId: 'cy', key: 'k', value: 'Cy works too', seq: 1 });
    expect(await found('cy', 'works')).toEqual(['k']);
    await store.deleteEntity('bo');
    expect(await found('bo', 'works')).toEqual([]);
    // Only Cy's "works" is left in the index.
    const left = (await indexedTerms(db)).filter((entry) => entry.term.endsWith('works'));
    expect(left).toHaveLength(1);
    expect(works.map((entry) => entry.term)).not.toContain(left[0]!.term);
  });

  it('reverts to the earlier index (down), which finds the same records', async () => {
    const db = await open();
    await runPackageMigrations(db, 'sqlite', LONGTERM_SQLITE_MIGRATIONS);
    const store = new SqliteLongtermStore(db);
    await store.save({ entityId: 'ada', key: 'job', value: 'Ada works at the mill', seq: 1 });
    for (const statement of LONGTERM_SQLITE_MIGRATIONS[2]!.down) await db.query(statement);
    const rows = await db.query(
      `SELECT r.key FROM agent_longterm_search JOIN agent_longterm_records r
        ON r.rowid = agent_longterm_search.rowid WHERE agent_longterm_search MATCH 'mill'`,
    );
    expect(rows).toEqual([{ key: 'job' }]);
  });
});

describe('MariaDB text search partitioned by entity', () => {
  let fresh: FreshDatabase | undefined;
  let maria: DataSource | undefined;
  afterEach(async () => {
    await maria?.destroy();
    await fresh?.drop();
    maria = undefined;
    fresh = undefined;
  });

  it('migrates the earlier index: each entity’s words tagged, a re-run changing nothing', async () => {
    fresh = await createFreshDatabase('mysql');
    maria = await new DataSource({ type: 'mysql', url: fresh.url }).initialize();
    await runPackageMigrations(maria, 'mysql', LONGTERM_MYSQL_MIGRATIONS.slice(0, 2));
    const insert = `INSERT INTO agent_longterm_records
      (entity_id, \`key\`, value, seq, updated_at, expires_at, search_text) VALUES (?, ?, ?, 1, 0, ?, ?)`;
    await maria.query(insert, ['ada', 'job', '"Ada works"', NEVER, 'ada__ works__']);
    await maria.query(insert, ['bo', 'job', '"Bo works"', NEVER, 'bo__ works__']);
    await maria.query(insert, ['bo', 'gone', '', NEVER, '']);
    expect(
      await runPackageMigrations(maria, 'mysql', LONGTERM_MYSQL_MIGRATIONS.slice(0, 3)),
    ).toEqual(['LongtermSearchByEntity1796947200000']);
    const stored = async () =>
      (
        (await maria!.query(
          'SELECT entity_id, search_text FROM agent_longterm_records ORDER BY entity_id, `key`',
        )) as Array<{ entity_id: Buffer; search_text: string }>
      ).map((row) => [String(row.entity_id), row.search_text]);
    expect(await stored()).toEqual([
      ['ada', `${entityTag('ada')}ada__ ${entityTag('ada')}works__`],
      ['bo', ''],
      ['bo', `${entityTag('bo')}bo__ ${entityTag('bo')}works__`],
    ]);
    // A re-run of the tagging leaves tagged rows as they are.
    await maria.query(LONGTERM_MYSQL_MIGRATIONS[2]!.up[0]!);
    expect((await stored())[0]![1]).toBe(`${entityTag('ada')}ada__ ${entityTag('ada')}works__`);
  });

  it('moves the full-text index to the terms table: each text’s terms counted, found, down and up again', async () => {
    fresh = await createFreshDatabase('mysql');
    maria = await new DataSource({ type: 'mysql', url: fresh.url }).initialize();
    await runPackageMigrations(maria, 'mysql', LONGTERM_MYSQL_MIGRATIONS.slice(0, 3));
    const insert = `INSERT INTO agent_longterm_records
      (entity_id, \`key\`, value, seq, updated_at, expires_at, search_text) VALUES (?, ?, ?, 1, 0, ?, ?)`;
    const tagged = (entityId: string, words: string) =>
      words
        .split(' ')
        .map((word) => `${entityTag(entityId)}${word}__`)
        .join(' ');
    await maria.query(insert, ['ada', 'job', '"x"', NEVER, tagged('ada', 'ada works works')]);
    await maria.query(insert, ['ada', 'café', '"x"', NEVER, tagged('ada', 'café a é')]);
    await maria.query(insert, ['bo', 'job', '"x"', NEVER, tagged('bo', 'bo works')]);
    await maria.query(insert, ['bo', 'gone', '', NEVER, '']);
    // A text of more words than a recursive split takes by default (1,000): every one is counted.
    const many = Array.from({ length: 1_500 }, (_, i) => `w${i % 750}`).join(' ');
    await maria.query(insert, ['cy', 'long', '"x"', NEVER, tagged('cy', many)]);
    expect(await runPackageMigrations(maria, 'mysql', LONGTERM_MYSQL_MIGRATIONS)).toEqual([
      'LongtermSearchTerms1797292800000',
      'LongtermSearchTermsOnly1797292800001',
      'LongtermTermsWithoutUpdateTime1797379200000',
    ]);
    expect(
      await maria.query(
        "SELECT COUNT(*) AS terms, SUM(tf) AS words, MIN(length) AS length FROM agent_longterm_terms WHERE entity_id = 'cy'",
      ),
    ).toEqual([{ terms: '750', words: '1500', length: 750 }]);
    await maria.query("DELETE FROM agent_longterm_terms WHERE entity_id = 'cy'");
    await maria.query("DELETE FROM agent_longterm_records WHERE entity_id = 'cy'");
    const terms = async () =>
      (
        (await maria!.query(
          'SELECT entity_id, term, `key`, tf, length FROM agent_longterm_terms ORDER BY entity_id, `key`, term',
        )) as Array<Record<string, unknown>>
      ).map((row) => [
        String(row.entity_id),
        String(row.term),
        String(row.key),
        row.tf,
        row.length,
      ]);
    expect(await terms()).toEqual([
      ['ada', 'a', 'café', 1, 3],
      ['ada', 'café', 'café', 1, 3],
      ['ada', 'é', 'café', 1, 3],
      ['ada', 'ada', 'job', 1, 2],
      ['ada', 'works', 'job', 2, 2],
      ['bo', 'bo', 'job', 1, 2],
      ['bo', 'works', 'job', 1, 2],
    ]);
    // Each term row carries its record's expiry, not its update time (a search by it reads the record).
    expect(
      await maria.query('SELECT DISTINCT expires_at AS expiresAt FROM agent_longterm_terms'),
    ).toEqual([{ expiresAt: String(NEVER) }]);
    const columns = async (table: string) =>
      (
        (await maria!.query(
          'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?',
          [table],
        )) as Array<{ name: string }>
      ).map((column) => column.name);
    expect(await columns('agent_longterm_records')).not.toContain('search_text');
    expect(await columns('agent_longterm_terms')).not.toContain('updated_at');
    const store = new MysqlLongtermStore(maria);
    const found = async (entityId: string, query: string) =>
      (await store.searchText(entityId, query)).map((hit) => hit.record.key);
    expect(await found('ada', 'works')).toEqual(['job']);
    expect(await found('bo', 'works')).toEqual(['job']);
    expect(await found('ada', 'cafe')).toEqual([]); // stored as written: "café" (a new save folds it)
    const saved = 1_700_000_000_000;
    await store.save({ entityId: 'ada', key: 'job', value: 'Ada bakes', seq: 2, updatedAt: saved });
    expect(await found('ada', 'bakes')).toEqual(['job']);
    expect(await found('ada', 'works')).toEqual([]);
    const [fill, termsOnly, withoutUpdateTime] = LONGTERM_MYSQL_MIGRATIONS.slice(3);
    // Down gives the terms their records' update times back…
    for (const statement of withoutUpdateTime!.down) await maria.query(statement);
    expect(
      await maria.query(
        "SELECT DISTINCT updated_at AS updatedAt FROM agent_longterm_terms WHERE `key` = 'job' AND entity_id = 'ada'",
      ),
    ).toEqual([{ updatedAt: String(saved) }]);
    // …and the tagged text of each record (terms in order, each as often as it occurs).
    for (const statement of termsOnly!.down) await maria.query(statement);
    // A fill run again (a start that stopped before recording it) adds nothing twice.
    const before = await terms();
    for (const statement of fill!.up) await maria.query(statement);
    expect(await terms()).toEqual(before);
    const texts = (await maria.query(
      'SELECT entity_id, `key`, search_text FROM agent_longterm_records ORDER BY entity_id, `key`',
    )) as Array<{ entity_id: Buffer; key: Buffer; search_text: string }>;
    expect(texts.map((row) => [String(row.entity_id), String(row.key), row.search_text])).toEqual([
      ['ada', 'café', tagged('ada', 'a café é')],
      ['ada', 'job', tagged('ada', 'ada bake bakes')],
      ['bo', 'gone', ''],
      ['bo', 'job', tagged('bo', 'bo works')],
    ]);
    for (const statement of [...termsOnly!.up, ...withoutUpdateTime!.up])
      await maria.query(statement);
    expect(await found('ada', 'bakes')).toEqual(['job']);
    expect(await found('bo', 'works')).toEqual(['job']);
  });
});
