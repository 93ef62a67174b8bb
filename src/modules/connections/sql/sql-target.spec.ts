import { describe, expect, it } from '@jest/globals';
import { mkdirSync, symlinkSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeConnectionUrl, sqlTargetKey } from './sql-target.js';

describe('connection keys', () => {
  it('give one key to spellings of the same server', () => {
    const key = normalizeConnectionUrl('postgres://u:p@db.local:5432/app?ssl=true&a=1');
    expect(normalizeConnectionUrl('postgresql://u:p@DB.LOCAL/app?a=1&ssl=true')).toBe(key);
    expect(normalizeConnectionUrl('redis://127.0.0.1')).toBe(
      normalizeConnectionUrl('redis://127.0.0.1:6379'),
    );
    expect(normalizeConnectionUrl('mariadb://root@h/test')).toBe(
      normalizeConnectionUrl('mysql://root@h:3306/test'),
    );
  });

  it('keep different databases, users and ports apart', () => {
    const base = normalizeConnectionUrl('postgres://u@h:5432/a');
    expect(normalizeConnectionUrl('postgres://u@h:5432/b')).not.toBe(base);
    expect(normalizeConnectionUrl('postgres://v@h:5432/a')).not.toBe(base);
    expect(normalizeConnectionUrl('postgres://u@h:5433/a')).not.toBe(base);
  });

  it('keep passwords given in the query apart, as a digest too', () => {
    const one = normalizeConnectionUrl('postgres:///a?host=/run/pg&user=u&password=SECRET1');
    const two = normalizeConnectionUrl('postgres:///a?host=/run/pg&user=u&password=SECRET2');
    expect(one).not.toBe(two);
    expect(`${one} ${two}`).not.toMatch(/SECRET/);
    expect(normalizeConnectionUrl('postgres:///a?password=SECRET1&user=u&host=/run/pg')).toBe(one);
    // A `%` in the password (`%25` in the URL) is a password like any other.
    const percent = normalizeConnectionUrl('postgres://u@db/a?password=100%25');
    expect(percent).not.toMatch(/100/);
    expect(normalizeConnectionUrl('postgres://u@db/a?password=100%25x')).not.toBe(percent);
  });

  it('keep different credentials apart, as a digest: no key holds a password', () => {
    const one = normalizeConnectionUrl('redis://:PW1@cache:6379');
    const two = normalizeConnectionUrl('redis://:PW2@cache:6379');
    expect(one).not.toBe(two);
    expect(normalizeConnectionUrl('redis://:PW1@cache')).toBe(one);
    expect(normalizeConnectionUrl('postgres://app:s3cret@db/x')).not.toBe(
      normalizeConnectionUrl('postgres://app:other@db/x'),
    );
    for (const key of [one, two, normalizeConnectionUrl('postgres://app:s3cret@db/x')])
      expect(key).not.toMatch(/PW1|PW2|s3cret/);
  });

  it('give one key to one SQLite file, whatever the path that reaches it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const key = sqlTargetKey({ dialect: 'sqlite', path: join(dir, 'real', 'db.sqlite') });
    expect(
      sqlTargetKey({ dialect: 'sqlite', path: join(dir, 'link', '..', 'real', 'db.sqlite') }),
    ).toBe(key);
    expect(sqlTargetKey({ dialect: 'sqlite', path: join(dir, 'link', 'db.sqlite') })).toBe(key);
    expect(sqlTargetKey({ dialect: 'sqlite', path: ':memory:' })).toBe('sqlite::memory:');
  });
});
