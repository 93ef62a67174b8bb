import { describe, expect, it } from '@jest/globals';
import { loadAppConfig } from './app.config.js';
import { loadChatMemoryConfig } from './chat-memory.config.js';
import { errorOf } from './config-error.testing.js';

describe('chat memory configuration', () => {
  it('defaults to SQLite at ./data/agent-memory.sqlite with migrations on', () => {
    expect(loadChatMemoryConfig({})).toEqual({
      backend: 'sqlite',
      path: './data/agent-memory.sqlite',
      migrationsRun: true,
    });
  });

  it('builds each backend from its variables', () => {
    expect(
      loadChatMemoryConfig({
        CHAT_MEMORY_BACKEND: 'postgres',
        DATABASE_URL: 'postgres://u@h/db',
        DB_MIGRATIONS_RUN: 'false',
      }),
    ).toEqual({
      backend: 'postgres',
      url: 'postgres://u@h/db',
      migrationsRun: false,
    });
    expect(
      loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: 'redis', REDIS_URL: 'rediss://h:6380' }),
    ).toEqual({ backend: 'redis', url: 'rediss://h:6380', keyPrefix: 'agent-memory:chat:' });
    // REDIS_KEY_PREFIX starts every key the app writes; a prefix with braces or spaces is refused.
    expect(
      loadChatMemoryConfig({
        CHAT_MEMORY_BACKEND: 'redis',
        REDIS_URL: 'redis://h',
        REDIS_KEY_PREFIX: 'staging:',
      }),
    ).toMatchObject({ keyPrefix: 'staging:chat:' });
    for (const prefix of ['a{b}:', 'a b', 'x'.repeat(101)])
      expect(() =>
        loadChatMemoryConfig({
          CHAT_MEMORY_BACKEND: 'redis',
          REDIS_URL: 'redis://h',
          REDIS_KEY_PREFIX: prefix,
        }),
      ).toThrow(/REDIS_KEY_PREFIX: must be 1–100 ASCII characters without spaces, \{ or \}/);
    expect(loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: 'memory' })).toEqual({ backend: 'memory' });
  });

  it('names the variable at fault', () => {
    expect(errorOf(() => loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: 'mongo' })).variable).toBe(
      'CHAT_MEMORY_BACKEND',
    );
    expect(errorOf(() => loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: 'postgres' })).variable).toBe(
      'DATABASE_URL',
    );
    expect(
      errorOf(() =>
        loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: 'mysql', DATABASE_URL: 'postgres://h/db' }),
      ).variable,
    ).toBe('DATABASE_URL');
    // Where it points, as the modules check it: no host, or a MySQL socket that is not a path.
    for (const [backend, url] of [
      ['postgres', 'postgres:///db'],
      ['mysql', 'mysql://root@localhost/db?socketPath=run/mysqld.sock'],
    ])
      expect(
        errorOf(() => loadChatMemoryConfig({ CHAT_MEMORY_BACKEND: backend, DATABASE_URL: url }))
          .variable,
      ).toBe('DATABASE_URL');
    expect(
      loadChatMemoryConfig({
        CHAT_MEMORY_BACKEND: 'postgres',
        DATABASE_URL: 'postgres:///db?host=/var/run/postgresql&user=app',
      }),
    ).toMatchObject({ backend: 'postgres' });
    expect(errorOf(() => loadChatMemoryConfig({ DB_MIGRATIONS_RUN: 'maybe' })).variable).toBe(
      'DB_MIGRATIONS_RUN',
    );
    expect(errorOf(() => loadAppConfig({ PORT: '70000' })).variable).toBe('PORT');
    expect(errorOf(() => loadAppConfig({ PORT: '3e3' })).message).toContain('PORT');
  });

  it('never prints a password of a malformed URL', () => {
    const error = errorOf(() =>
      loadChatMemoryConfig({
        CHAT_MEMORY_BACKEND: 'postgres',
        DATABASE_URL: 'postgres://u:secret@h:bad/db',
      }),
    );
    expect(error.message).not.toContain('secret');
  });
});
