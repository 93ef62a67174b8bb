import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import type { SqliteHandle } from './sqlite-handle.js';

/** A WAL database file on disk (as the app opens it), its statements traced. */
function openTraced(path: string, trace: string[]): SqliteHandle {
  const db = new Database(path, { verbose: (sql) => trace.push(String(sql)) });
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  trace.length = 0;
  return db;
}

describe('SqliteGroupCommit', () => {
  let dir: string;
  let db: SqliteHandle;
  let trace: string[];
  const insert = (text: string) => () =>
    Number(db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).lastInsertRowid);
  const texts = () =>
    (db.prepare('SELECT text FROM notes ORDER BY id').pluck().all() as string[]).join(',');
  const commits = () => trace.filter((sql) => sql === 'COMMIT').length;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    trace = [];
    db = openTraced(join(dir, 'db.sqlite'), trace);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the writes asked for in one round of the event loop once, in their order', async () => {
    const group = SqliteGroupCommit.of(db);
    const ids = await Promise.all(['a', 'b', 'c'].map((text) => group.run(insert(text))));
    expect(ids).toEqual([1, 2, 3]);
    expect(texts()).toBe('a,b,c');
    expect(commits()).toBe(1);
    expect(trace.filter((sql) => sql.startsWith('SAVEPOINT'))).toHaveLength(3);
  });

  it('runs a lone write as its own transaction, and a later round as another group', async () => {
    const group = SqliteGroupCommit.of(db);
    await group.run(insert('a'));
    expect(trace).toEqual([
      'BEGIN IMMEDIATE',
      'INSERT INTO notes (text) VALUES (?)'.replace('?', "'a'"),
      'COMMIT',
    ]);
    await Promise.all([group.run(insert('b')), group.run(insert('c'))]);
    expect(commits()).toBe(2);
  });

  it('is one per connection, shared by every store writing through it', () => {
    expect(SqliteGroupCommit.of(db)).toBe(SqliteGroupCommit.of(db));
  });

  it('undoes and rejects a write that throws alone; the others of its group commit', async () => {
    const group = SqliteGroupCommit.of(db);
    const failing = () => {
      insert('half')();
      throw new Error('invalid note');
    };
    const outcomes = await Promise.allSettled([
      group.run(insert('a')),
      group.run(failing),
      group.run(insert('b')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('invalid note'));
    expect(texts()).toBe('a,b');
    expect(commits()).toBe(1);
  });

  it('rejects every write of a group, and writes none, when SQLite ends the transaction', async () => {
    db.exec(`CREATE TRIGGER no_rollback BEFORE INSERT ON notes WHEN NEW.text = 'rollback'
      BEGIN SELECT RAISE(ROLLBACK, 'the whole transaction is rolled back'); END`);
    const group = SqliteGroupCommit.of(db);
    const outcomes = await Promise.allSettled([
      group.run(insert('a')),
      group.run(insert('rollback')),
      group.run(insert('b')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/rolled back/);
    expect(texts()).toBe('');
    expect(db.inTransaction).toBe(false);
    await expect(group.run(insert('after'))).resolves.toBe(1);
  });

  it('rejects every write of a group when the commit cannot start (the file locked elsewhere)', async () => {
    const other = new Database(join(dir, 'db.sqlite'), { timeout: 0 });
    db.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const group = SqliteGroupCommit.of(db);
      const outcomes = await Promise.allSettled([group.run(insert('a')), group.run(insert('b'))]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    expect(texts()).toBe('');
  });

  it('runs a write asked for inside an open transaction at once, as part of it', async () => {
    const group = SqliteGroupCommit.of(db);
    let inner: Promise<number> | undefined;
    db.transaction(() => {
      insert('outer')();
      inner = group.run(insert('inner'));
    })();
    await expect(inner).resolves.toBe(2);
    expect(texts()).toBe('outer,inner');
    expect(commits()).toBe(1);
  });

  it('answers a write only once its group has committed', async () => {
    const group = SqliteGroupCommit.of(db);
    const reader = new Database(join(dir, 'db.sqlite'), { readonly: true });
    try {
      const seen = await Promise.all([
        group.run(insert('a')),
        group
          .run(insert('b'))
          .then(() => reader.prepare('SELECT count(*) FROM notes').pluck().get() as number),
      ]);
      expect(seen[1]).toBe(2);
    } finally {
      reader.close();
    }
  });
});
