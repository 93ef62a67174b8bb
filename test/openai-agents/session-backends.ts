import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ChatMemoryModuleOptions } from '../../src/modules/chat-memory/chat-memory.options.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

/** A backend of `ChatMemoryModule` under test: its label, its options, and whether two module instances (or processes) share it. */
export interface SessionBackend {
  label: string;
  /** The module options; the same ones each time for one backend (one SQLite file, one Redis prefix). */
  options: ChatMemoryModuleOptions;
  shared: boolean;
}

/** Every backend of the chat memory store: memory, SQLite (a file), PostgreSQL, MariaDB, Redis. */
export function sessionBackends(): SessionBackend[] {
  return [
    { label: 'memory', options: { backend: 'memory' }, shared: false },
    {
      label: 'SQLite',
      options: { backend: 'sqlite', path: join(tempDir('openai-agents-'), 'sessions.sqlite') },
      shared: true,
    },
    { label: 'PostgreSQL', options: { backend: 'postgres', url: TEST_POSTGRES_URL }, shared: true },
    { label: 'MariaDB', options: { backend: 'mysql', url: TEST_MYSQL_URL }, shared: true },
    {
      label: 'Redis',
      options: {
        backend: 'redis',
        url: TEST_REDIS_URL,
        keyPrefix: `test:openai-agents:${randomUUID()}:`,
      },
      shared: true,
    },
  ];
}
