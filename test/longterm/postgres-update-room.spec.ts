import { afterEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { runPackageMigrations } from '../../src/modules/connections/migrations/migration-runner.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import { LONGTERM_POSTGRES_MIGRATIONS } from '../../src/modules/longterm/schema/postgres.migrations.js';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';

let fresh: FreshDatabase | undefined;
let db: DataSource | undefined;
afterEach(async () => {
  await db?.destroy();
  await fresh?.drop();
  db = fresh = undefined;
});

/** A fresh database with the long-term migrations applied. */
async function migrated(): Promise<DataSource> {
  fresh = await createFreshDatabase('postgres');
  db = await new DataSource({ type: 'postgres', url: fresh.url }).initialize();
  expect(await runPackageMigrations(db, 'postgres', LONGTERM_POSTGRES_MIGRATIONS)).toContain(
    'LongtermUpdateRoom1797465600000',
  );
  return db;
}

/** The heap page of each of the entity's rows (a heap-only update keeps a row on its page). */
async function pagesOf(source: DataSource): Promise<Map<string, string>> {
  const rows = (await source.query(
    `SELECT key, (ctid::text::point)[0]::bigint AS page FROM agent_longterm_records
      WHERE entity_id = 'ada'`,
  )) as Array<{ key: string; page: string }>;
  return new Map(rows.map((row) => [row.key, row.page]));
}

/**
 * Waits (at most 30 s) until no other session's transaction began before now. A page's earlier
 * versions are pruned to make room only once no transaction could still see them, and other suites
 * run beside this one (a deadlock test holds a transaction for a second): the measure is of the
 * room a page keeps, not of what else the server runs.
 */
async function untilOlderTransactionsEnd(source: DataSource): Promise<void> {
  const [{ now }] = (await source.query('SELECT clock_timestamp() AS now')) as Array<{ now: Date }>;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const [{ n }] = (await source.query(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND xact_start < $1`,
      [now],
    )) as Array<{ n: string }>;
    if (Number(n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Saves 600 records, then saves them again with the same words six times (the first saves again
 * fill the room a page was written with; then each finds the room its page's pruned versions left),
 * and answers the share of rows the last save left on their page.
 */
async function shareUpdatedInPlace(source: DataSource): Promise<number> {
  const store = new PostgresLongtermStore(source);
  const rows = (seq: number) =>
    Array.from({ length: 600 }, (_, i) => ({
      entityId: 'ada',
      key: `fact/${String(i).padStart(4, '0')}`,
      value: { note: `fact number ${i}`, seen: seq },
      seq,
    }));
  for (let seq = 1; seq <= 6; seq += 1) {
    await store.saveMany(rows(seq));
    await untilOlderTransactionsEnd(source);
  }
  const before = await pagesOf(source);
  await store.saveMany(rows(7));
  const after = await pagesOf(source);
  expect((await store.load('ada', 'fact/0007'))?.value).toEqual({ note: 'fact number 7', seen: 7 });
  return [...before].filter(([key, page]) => after.get(key) === page).length / before.size;
}

describe('PostgreSQL long-term records: room on each page for the next version', () => {
  it('updates a record saved again with the same words in place, on its page', async () => {
    const source = await migrated();
    const [{ reloptions }] = (await source.query(
      "SELECT reloptions FROM pg_class WHERE relname = 'agent_longterm_records'",
    )) as Array<{ reloptions: string[] }>;
    expect(reloptions).toEqual(['fillfactor=70']);
    expect(await shareUpdatedInPlace(source)).toBeGreaterThan(0.85);
  });

  it('moved most of them to new pages at the default fill (every index written again)', async () => {
    const source = await migrated();
    await source.query('ALTER TABLE agent_longterm_records RESET (fillfactor)');
    expect(await shareUpdatedInPlace(source)).toBeLessThan(0.5);
  });
});
