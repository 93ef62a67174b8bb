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

  it('commits a lone write at once, as its own transaction', async () => {
    const group = SqliteGroupCommit.of(db);
    await group.run(insert('a'));
    expect(trace).toEqual(['BEGIN IMMEDIATE', "INSERT INTO notes (text) VALUES ('a')", 'COMMIT']);
    await group.run(insert('b'));
    expect(commits()).toBe(2);
    expect(texts()).toBe('a,b');
  });

  it('commits the writes after the first of a round as one group, then each round as one', async () => {
    const group = SqliteGroupCommit.of(db);
    const round = (names: string[]) => Promise.all(names.map((text) => group.run(insert(text))));
    await expect(round(['a', 'b', 'c'])).resolves.toEqual([1, 2, 3]);
    expect(commits()).toBe(2); // 'a' alone, then 'b' and 'c' together
    expect(trace.filter((sql) => sql.startsWith('SAVEPOINT'))).toHaveLength(2);
    // Groups are forming: every write of the next round waits for it.
    await expect(round(['d', 'e', 'f'])).resolves.toEqual([4, 5, 6]);
    expect(commits()).toBe(3);
    expect(texts()).toBe('a,b,c,d,e,f');
    // A round of one write ends the groups: the next lone write commits at once again.
    await group.run(insert('g'));
    trace.length = 0;
    await group.run(insert('h'));
    expect(trace).toEqual(['BEGIN IMMEDIATE', "INSERT INTO notes (text) VALUES ('h')", 'COMMIT']);
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
      group.run(insert('alone')),
      group.run(insert('a')),
      group.run(failing),
      group.run(insert('b')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('invalid note'));
    expect(texts()).toBe('alone,a,b');
    expect(commits()).toBe(2);
  });

  it('rejects every write of a group, and writes none, when SQLite ends the transaction', async () => {
    db.exec(`CREATE TRIGGER no_rollback BEFORE INSERT ON notes WHEN NEW.text = 'rollback'
      BEGIN SELECT RAISE(ROLLBACK, 'the whole transaction is rolled back'); END`);
    const group = SqliteGroupCommit.of(db);
    const outcomes = await Promise.allSettled(
      ['alone', 'a', 'rollback', 'b'].map((text) => group.run(insert(text))),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    for (const outcome of outcomes.slice(1))
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/rolled back/);
    expect(texts()).toBe('alone');
    expect(db.inTransaction).toBe(false);
    await expect(group.run(insert('after'))).resolves.toBe(2);
  });

  it('rejects every write of a group when the commit cannot start (the file locked elsewhere)', async () => {
    const other = new Database(join(dir, 'db.sqlite'), { timeout: 0 });
    db.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const group = SqliteGroupCommit.of(db);
      const outcomes = await Promise.allSettled(
        ['alone', 'a', 'b'].map((text) => group.run(insert(text))),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'rejected',
        'rejected',
        'rejected',
      ]);
      for (const outcome of outcomes)
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
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

  it('answers no write of a group whose commit fails, and writes none', async () => {
    db.pragma('foreign_keys = ON');
    db.exec(`CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`);
    const group = SqliteGroupCommit.of(db);
    // The orphan passes its own savepoint; the deferred key fails the group's COMMIT.
    const orphan = () => db.prepare('INSERT INTO children (parent) VALUES (42)').run().changes;
    const outcomes = await Promise.allSettled([
      group.run(insert('alone')),
      group.run(insert('a')),
      group.run(orphan),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
    });
    expect(texts()).toBe('alone');
    expect(db.prepare('SELECT count(*) FROM children').pluck().get()).toBe(0);
    expect(db.inTransaction).toBe(false);
  });
  it('keeps the order writes were asked in, a write asked between the rounds included', async () => {
    const group = SqliteGroupCommit.of(db);
    const first = group.run(insert('a')); // at once
    let third: Promise<number> | undefined;
    // Runs after the round's reset and before its group: it must still wait behind 'b'.
    setImmediate(() => (third = group.run(insert('c'))));
    const second = group.run(insert('b')); // waits for the group
    await Promise.all([first, second]);
    await third;
    expect(texts()).toBe('a,b,c');
  });

  it("refuses a write asked for inside a write's own work", async () => {
    const group = SqliteGroupCommit.of(db);
    let nested: Promise<number> | undefined;
    await group.run(() => {
      nested = group.run(insert('nested'));
      return insert('outer')();
    });
    await expect(nested).rejects.toThrow(/asked for another write/);
    expect(texts()).toBe('outer');
  });

  it('lets a group waiting when the app opens a transaction wait for its end, not share its fate', async () => {
    const group = SqliteGroupCommit.of(db);
    await group.run(insert('a')); // at once: the round's next write waits for its group
    const waiting = group.run(insert('queued'));
    let answered = false;
    void waiting.then(() => (answered = true));
    // The app's own transaction on the shared connection (TypeORM: BEGIN, awaits, ROLLBACK).
    db.prepare('BEGIN').run();
    insert('the app')();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    db.prepare('ROLLBACK').run();
    await expect(waiting).resolves.toBe(2);
    expect(texts()).toBe('a,queued');
  });

  it('commits the writes still waiting when drained, before the connection closes', async () => {
    const group = SqliteGroupCommit.of(db);
    const alone = group.run(insert('a'));
    const waiting = group.run(insert('b'));
    SqliteGroupCommit.drain(db);
    const path = db.name;
    db.close();
    await expect(Promise.all([alone, waiting])).resolves.toEqual([1, 2]);
    db = openTraced(path, trace);
    expect(texts()).toBe('a,b');
  });
});
