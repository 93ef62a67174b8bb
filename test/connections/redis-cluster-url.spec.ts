import { describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import {
  isRedisClusterUrl,
  parseRedisClusterUrl,
} from '../../src/modules/connections/redis/redis-cluster-url.js';
import { redisTargetKey } from '../../src/modules/connections/redis/redis-target-key.js';
import { bullClusterPrefix } from '../../src/modules/connections/redis/open-bull-queue.js';
import { parseStoreUri } from '../../src/modules/connections/store-uri.js';
import { validateChatMemoryOptions } from '../../src/modules/chat-memory/chat-memory-options.validation.js';

describe('Redis Cluster URLs', () => {
  it('reads seed nodes, default ports, IPv6, percent-encoded credentials and TLS', () => {
    expect(parseRedisClusterUrl('redis+cluster://10.0.0.1:7000,cache-b,[::1]:7002/')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'cache-b', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
    });
    expect(parseRedisClusterUrl('REDISS+CLUSTER://app:p%40ss%3Aw%2Fd@h1:7000,h2:7001')).toEqual({
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7001 },
      ],
      username: 'app',
      password: 'p@ss:w/d',
      tls: true,
    });
    expect(parseRedisClusterUrl('redis+cluster://:secret@h:7000')).toMatchObject({
      password: 'secret',
    });
    expect(parseRedisClusterUrl('redis+cluster://:secret@h:7000')).not.toHaveProperty('username');
  });

  it('tells cluster URLs from single-server ones', () => {
    expect(isRedisClusterUrl('redis+cluster://h:7000')).toBe(true);
    expect(isRedisClusterUrl('Rediss+Cluster://h:7000')).toBe(true);
    expect(isRedisClusterUrl('redis://h:7000')).toBe(false);
    expect(isRedisClusterUrl('rediss://h+cluster:7000')).toBe(false);
  });

  it.each([
    ['redis+cluster://', 'names no node'],
    ['redis+cluster://h1:7000,,h2:7001', 'not host[:port]'],
    ['redis+cluster://h1:70000', 'not host[:port]'],
    ['redis+cluster://h1:port', 'not host[:port]'],
    ['redis+cluster://h1:7000/1', 'a path, query or fragment'],
    ['redis+cluster://h1:7000?db=1', 'a path, query or fragment'],
    ['redis+cluster://:%E0%A4%A@h1:7000', 'percent-encoding'],
    ['redis+cluster://h1:7000,u:%E0pw@h2:7001', 'credentials come first'],
    ['redis+cluster://h1:0', 'not host[:port]'],
    ['redis+cluster://h%31:7000', 'percent-encoded host'],
  ])('refuses %s (%s), naming the grammar and never the password', (url, problem) => {
    let error: unknown;
    try {
      parseRedisClusterUrl(url);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).toContain('redis+cluster://[user[:password]@]host[:port]');
    expect((error as Error).message).not.toContain('%E0');
  });

  it('shares one client per cluster and credentials, whatever the order or spelling of the seeds', () => {
    const key = redisTargetKey('redis+cluster://B:7001,a:7000');
    expect(redisTargetKey('REDIS+CLUSTER://A:7000,b:7001,a:7000/')).toBe(key);
    expect(redisTargetKey('redis+cluster://a:7000,b:7002')).not.toBe(key);
    expect(redisTargetKey('rediss+cluster://a:7000,b:7001')).not.toBe(key);
    const withPassword = redisTargetKey('redis+cluster://:pw1@a:7000,b:7001');
    expect(withPassword).not.toBe(key);
    expect(withPassword).not.toContain('pw1');
    expect(redisTargetKey('redis+cluster://:pw2@a:7000,b:7001')).not.toBe(withPassword);
    expect(redisTargetKey('redis://a:7000')).not.toBe(redisTargetKey('redis+cluster://a:7000'));
    expect(redisTargetKey('redis+cluster://b:7001,A,[::1]:7002')).toBe(
      'redis+cluster://[::1]:7002,a:6379,b:7001',
    );
    expect(withPassword).toMatch(/^redis\+cluster:\/\/:sha256-[\w-]{22}@a:7000,b:7001$/);
  });

  it('is a store URI of the redis backend', () => {
    const place = { moduleName: 'LongtermMemoryModule', option: 'uri' };
    expect(parseStoreUri('redis+cluster://h1:7000,h2:7001', place)).toEqual({
      kind: 'redis',
      url: 'redis+cluster://h1:7000,h2:7001',
    });
    expect(() => parseStoreUri('redis+cluster://:pw@h1:7000/db', place)).toThrow(
      /LongtermMemoryModule.*uri.*a path, query or fragment/,
    );
    expect(() => parseStoreUri('redis+cluster://:pw@h1:7000/db', place)).not.toThrow(/pw/);
    for (const password of ['/secret', '?secret', '12#secret'])
      expect(() => parseStoreUri(`redis+cluster://u:${password}@h1:7000/0`, place)).not.toThrow(
        /secret/,
      );
  });

  it('is a chat memory url, checked at bootstrap', () => {
    expect(
      validateChatMemoryOptions({ backend: 'redis', url: 'redis+cluster://h1:7000,h2:7001' }),
    ).toMatchObject({ url: 'redis+cluster://h1:7000,h2:7001' });
    expect(() =>
      validateChatMemoryOptions({ backend: 'redis', url: 'redis+cluster://:pw@h1:7000/1' }),
    ).toThrow(/ChatMemoryModule.*"url".*a path, query or fragment/);
  });

  it('gives a Bull prefix a hash tag on a cluster, keeping one it has', () => {
    expect(bullClusterPrefix('bull')).toBe('{bull}');
    expect(bullClusterPrefix('{jobs}')).toBe('{jobs}');
    expect(bullClusterPrefix('app:{jobs}')).toBe('app:{jobs}');
    expect(bullClusterPrefix('odd{}')).toBe('{odd{}}');
    expect(bullClusterPrefix('{}{x}')).toBe('{{}{x}}');
    expect(bullClusterPrefix('a}b{c}')).toBe('a}b{c}');
  });
});
