import { describe, expect, it } from '@jest/globals';
import { validateAgentOptions } from '../agent/agent-options.validation.js';
import { validateWorkingMemoryOptions } from '../working-memory/working-memory-options.validation.js';
import { serverUrlProblem } from './server-url.js';
import { storeUriProblem } from './store-uri.js';

describe('serverUrlProblem: a module url, checked at bootstrap', () => {
  it('takes server URLs with a host, IPv6, TLS and Redis Cluster seeds', () => {
    for (const [url, backend] of [
      ['postgres://app@db.internal:5432/chat', 'postgres'],
      ['postgresql://app@[::1]/chat', 'postgres'],
      ['mariadb://root@127.0.0.1/test', 'mysql'],
      ['rediss://:pw@cache:6380/1', 'redis'],
      ['redis+cluster://h1:7000,h2:7001', 'redis'],
      // ioredis reads no host as localhost.
      ['redis:///0', 'redis'],
      // PostgreSQL's Unix socket in the query (pg reads the user there too), with or without a host.
      ['postgres:///chat?host=/var/run/postgresql&user=app', 'postgres'],
      ['postgres://app@localhost/chat?host=/var/run/postgresql', 'postgres'],
      ['mysql://app@localhost/chat?socketPath=/run/mysqld/mysqld.sock', 'mysql'],
    ] as const)
      expect(serverUrlProblem(url, backend)).toBeUndefined();
  });

  it('names what is wrong: not a URL, another scheme, no SQL host, a cluster URL with a path', () => {
    expect(serverUrlProblem('db.internal:5432', 'postgres')).toMatch(/must start with postgres:/);
    expect(serverUrlProblem('not a url', 'mysql')).toMatch(/must be a valid mysql URL/);
    expect(serverUrlProblem('postgres://h/db', 'redis')).toMatch(/must start with redis:/);
    expect(serverUrlProblem('postgres:///chat', 'postgres')).toMatch(
      /has no host: write postgres:/,
    );
    expect(serverUrlProblem('redis+cluster://h1:7000/1', 'redis')).toMatch(/a path/);
    // A socket must be a path; MySQL names its user before a host, so it keeps one (localhost).
    expect(serverUrlProblem('postgres:///chat?host=db&user=app', 'postgres')).toMatch(
      /has no host: .*\?host=\/its\/directory&user=/,
    );
    expect(serverUrlProblem('mysql:///chat?socketPath=/run/mysqld/mysqld.sock', 'mysql')).toMatch(
      /has no host: .*host localhost and \?socketPath=\/its\/file/,
    );
    // No authority at all (pg would read the database as "hat"); a relative MySQL socket, which
    // mysql2 would not take for one; the last of repeated parameters, as the drivers read them.
    expect(serverUrlProblem('postgres:chat?host=/var/run/postgresql', 'postgres')).toMatch(
      /has no host/,
    );
    expect(serverUrlProblem('mysql://app@localhost/chat?socketPath=run/x.sock', 'mysql')).toBe(
      'names a socketPath that is not an absolute path: write ?socketPath=/its/file',
    );
    expect(serverUrlProblem('postgres:///chat?host=/a&host=db&user=x', 'postgres')).toMatch(
      /has no host/,
    );
    expect(
      serverUrlProblem('postgres:///chat?host=db&host=/var/run/postgresql&user=x', 'postgres'),
    ).toBeUndefined();
  });

  it('is storeUriProblem for a store URI: the same socket rules, the URI shown without its password', () => {
    expect(storeUriProblem('postgres:///chat?host=/var/run/postgresql&user=app')).toBeUndefined();
    expect(storeUriProblem('sqlite::memory:')).toBeUndefined();
    // Credentials without a host are not a URL at all (WHATWG): the password still not shown.
    expect(storeUriProblem('postgres://app:secret@:5432/chat')).toBe(
      '"postgres://***@:5432/chat" is not a URI',
    );
    expect(storeUriProblem('postgres://app:secret@/chat?user=x')).not.toContain('secret');
    expect(storeUriProblem('mysql:///chat?socketPath=/run/mysqld/mysqld.sock')).toMatch(
      /has no host/,
    );
    expect(storeUriProblem('ftp://h/x')).toBe('unknown scheme "ftp:"');
  });

  it("is WorkingMemoryModule's url check and the agent's runs.url check", () => {
    expect(() =>
      validateWorkingMemoryOptions({ backend: 'redis', url: 'postgres://h/db' }),
    ).toThrow(/WorkingMemoryModule.*"url".*must start with redis: or rediss:/);
    expect(validateWorkingMemoryOptions({ backend: 'redis', url: 'redis://h:6379' })).toMatchObject(
      { url: 'redis://h:6379' },
    );
    expect(() =>
      validateAgentOptions({
        llm: { provider: 'echo' },
        runs: { backend: 'postgres', url: 'postgres:///runs' },
      }),
    ).toThrow(/AgentModule.*"runs\.url".*has no host/);
    expect(() =>
      validateAgentOptions({
        llm: { provider: 'echo' },
        runs: { backend: 'redis', url: 'http://cache:6379' },
      }),
    ).toThrow(/AgentModule.*"runs\.url".*must start with redis:/);
  });
});
