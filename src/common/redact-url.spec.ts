import { describe, expect, it } from '@jest/globals';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['postgres://app:s3cret@db:5432/app', 'postgres://app:***@db:5432/app'],
    ['postgres://app:s3cr/et@db/app', 'postgres://***@db/app'],
    ['postgres://app:p@ss@db/app', 'postgres://app:***@db/app'],
    ['redis://:pw@cache:6379', 'redis://:***@cache:6379'],
    [
      'postgres://db/app?user=a&password=hunter2&ssl=true',
      'postgres://db/app?user=a&password=***&ssl=true',
    ],
    ['mysql://db/app?sslkey=abc', 'mysql://db/app?sslkey=***'],
    ['redis://cache:6379', 'redis://cache:6379'],
    ['postgres://app:hunter#2@db.internal/mem', 'postgres://***@db.internal/mem'],
    ['postgres://app:a?b@c/x', 'postgres://***@c/x'],
    // Not a URL the parser reads (a port out of range): the query's credentials hidden all the same.
    [
      'postgres://db:99999/app?password=hunter2&sslmode=require',
      'postgres://db:99999/app?password=***&sslmode=require',
    ],
    ['mysql://db:x/app?ssl=1&authToken=abc', 'mysql://db:x/app?ssl=1&authToken=***'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
    expect(redactUrl(url)).not.toMatch(/s3cr|hunter|pw@|p@ss@|abc|a\?b/);
  });
});
