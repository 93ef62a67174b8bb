import { describe, expect, it } from '@jest/globals';
import { loadAuthConfig } from './auth.config.js';
import { errorOf } from './config-error.testing.js';

describe('auth configuration', () => {
  it('has no keys by default', () => {
    expect(loadAuthConfig({})).toEqual({ apiKeys: [], docs: 'public' });
    expect(loadAuthConfig({ API_KEYS: '  ' })).toEqual({ apiKeys: [], docs: 'public' });
  });

  it('reads tenant:key pairs, several keys per tenant', () => {
    expect(
      loadAuthConfig({
        API_KEYS:
          'tenant-A:first-key-of-tenant-a, tenant_b.2:k:with:colons:and:more,tenant-A:second-key-of-tenant',
      }),
    ).toEqual({
      apiKeys: [
        { tenant: 'tenant-A', key: 'first-key-of-tenant-a' },
        { tenant: 'tenant_b.2', key: 'k:with:colons:and:more' },
        { tenant: 'tenant-A', key: 'second-key-of-tenant' },
      ],
      docs: 'public',
    });
    expect(
      loadAuthConfig({ API_KEYS: `${'t'.repeat(50)}:${'k'.repeat(16)}` }).apiKeys,
    ).toHaveLength(1);
  });

  it('refuses malformed entries and repeated keys, naming API_KEYS and never a key', () => {
    const cases: Array<[string, string]> = [
      ['a:supersecret1-long-enough,', 'entry 2 is empty'],
      ['supersecret1-long-enough', 'entry 1 is not tenant:key'],
      [':supersecret1-long-enough', 'entry 1: the tenant id'],
      ['bad tenant:supersecret1-long-enough', 'entry 1: the tenant id'],
      [`${'t'.repeat(51)}:supersecret1-long-enough`, 'entry 1: the tenant id'],
      ['ténant:supersecret1-long-enough', 'entry 1: the tenant id'],
      ['a:', 'entry 1: the key is empty'],
      ['a:super secret1-long-enough', 'entry 1: the key holds whitespace'],
      ['a:supersecret15', 'entry 1: the key must be at least 16 characters'],
      [
        'a:supersecret1-long-enough,b:other-key-long-enough,c:supersecret1-long-enough',
        'entry 3 repeats the key of entry 1',
      ],
    ];
    for (const [value, problem] of cases) {
      const error = errorOf(() => loadAuthConfig({ API_KEYS: value }));
      expect(error.variable).toBe('API_KEYS');
      expect(error.problem).toContain(problem);
      expect(error.message).not.toContain('secret');
    }
  });

  it('reads API_DOCS: public by default, key or off, anything else named', () => {
    expect(loadAuthConfig({}).docs).toBe('public');
    expect(loadAuthConfig({ API_DOCS: 'key' }).docs).toBe('key');
    expect(loadAuthConfig({ API_DOCS: 'off' }).docs).toBe('off');
    const error = errorOf(() => loadAuthConfig({ API_DOCS: 'private' }));
    expect(error.variable).toBe('API_DOCS');
    expect(error.message).toContain('must be one of public, key, off, got "private"');
  });

  it('reads ADMIN_API_KEY: long enough, apart from the tenant keys, never echoed', () => {
    expect(
      loadAuthConfig({ API_KEYS: 'a:key-one-of-tenant-a', ADMIN_API_KEY: 'admin-key-0123456789' })
        .adminKey,
    ).toBe('admin-key-0123456789');
    for (const env of [
      { ADMIN_API_KEY: 'short-secret' },
      { API_KEYS: 'a:admin-key-0123456789', ADMIN_API_KEY: 'admin-key-0123456789' },
    ]) {
      const error = errorOf(() => loadAuthConfig(env));
      expect(error.variable).toBe('ADMIN_API_KEY');
      expect(error.message).not.toContain('secret');
      expect(error.message).not.toContain('admin-key');
    }
  });
});
