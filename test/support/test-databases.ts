import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The test databases (DEVELOPERS.md's machine); override with env variables elsewhere. */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh temporary directory for SQLite files. */
export function tempDir(prefix = 'agent-memory-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * The long-term tier's five backends as `[label, uri]` pairs for `describe.each` (SQLite in a fresh
 * file named `sqliteFile`, made when the uri is asked for).
 */
export function longtermUris(sqliteFile: string): Array<[string, () => string]> {
  return [
    ['memory', () => 'memory://'],
    ['SQLite', () => `sqlite:${join(tempDir(), sqliteFile)}`],
    ['PostgreSQL', () => TEST_POSTGRES_URL],
    ['MariaDB', () => TEST_MYSQL_URL],
    ['Redis', () => TEST_REDIS_URL],
  ];
}
