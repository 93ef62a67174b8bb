import { describe, expect, it } from '@jest/globals';
import { validateChatMemoryOptions } from './chat-memory-options.validation.js';

describe('validateChatMemoryOptions: url', () => {
  it('accepts a server URL with a host', () => {
    for (const [backend, url] of [
      ['postgres', 'postgres://app@db.internal:5432/chat'],
      ['mysql', 'mariadb://root@127.0.0.1/test'],
      ['redis', 'redis://127.0.0.1:6379/2'],
      // ioredis connects to localhost:6379, as it always did here.
      ['redis', 'redis:///0'],
    ] as const)
      expect(validateChatMemoryOptions({ backend, url })).toMatchObject({ url });
  });

  it('refuses a SQL URL without a host, as the uri form does, instead of letting the driver guess', () => {
    for (const [backend, url] of [
      ['postgres', 'postgres:///chat'],
      ['mysql', 'mysql:///chat'],
    ] as const)
      expect(() => validateChatMemoryOptions({ backend, url })).toThrow(
        /ChatMemoryModule.*"url".*has no host: write \w+:\/\/\[user\[:password\]@\]host\[:port\]/,
      );
  });

  it('says a missing url is required, and what a wrong one must be', () => {
    expect(() => validateChatMemoryOptions({ backend: 'postgres' })).toThrow(
      /"url".*is required: a postgres URL/,
    );
    expect(() => validateChatMemoryOptions({ backend: 'postgres', url: '' })).toThrow(
      /"url".*must be a postgres URL/,
    );
    expect(() => validateChatMemoryOptions({ backend: 'postgres', url: 'redis://h/0' })).toThrow(
      /must start with postgres: or postgresql: for the postgres backend/,
    );
  });
});
