import { describe, expect, it } from '@jest/globals';
import { variableAtFault } from './config-error.testing.js';
import { loadHttpConfig } from './http.config.js';

describe('HTTP configuration', () => {
  it('defaults to Fastify, 1 MiB bodies, 10 s shutdown, 120 requests a minute, 10 s / 30 s to send a request', () => {
    expect(loadHttpConfig({})).toEqual({
      adapter: 'fastify',
      bodyLimitBytes: 1_048_576,
      shutdownTimeoutMs: 10_000,
      rateLimit: { ttlMs: 60_000, limit: 120 },
      turnsRateLimit: { ttlMs: 60_000, limit: 20 },
      authFailureLimit: { ttlMs: 60_000, limit: 20 },
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      sendTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      pageBytes: 1_048_576,
      allowedHosts: [],
    });
  });

  it('reads the request timeouts; the whole request may not be bounded below its headers', () => {
    expect(
      loadHttpConfig({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '5000' }),
    ).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
    expect(loadHttpConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000' }).requestTimeoutMs).toBe(60_000);
    expect(
      variableAtFault(() =>
        loadHttpConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' }),
      ),
    ).toBe('HTTP_REQUEST_TIMEOUT_MS');
  });

  it('runs on Fastify or Express (HTTP_ADAPTER), and names the variable of any other choice', () => {
    expect(loadHttpConfig({ HTTP_ADAPTER: 'express' }).adapter).toBe('express');
    expect(loadHttpConfig({ HTTP_ADAPTER: 'fastify' }).adapter).toBe('fastify');
    expect(variableAtFault(() => loadHttpConfig({ HTTP_ADAPTER: 'koa' }))).toBe('HTTP_ADAPTER');
  });

  it('reads body limits as bytes, kb or mb', () => {
    const limit = (value: string): number =>
      loadHttpConfig({ HTTP_BODY_LIMIT: value }).bodyLimitBytes;
    expect(limit('2048')).toBe(2048);
    expect(limit('100kb')).toBe(102_400);
    expect(limit('2MB')).toBe(2_097_152);
    expect(limit('5 mb')).toBe(5_242_880);
  });

  it('reads the shutdown timeout and the rate limit, 0 turning it off', () => {
    expect(
      loadHttpConfig({
        SHUTDOWN_TIMEOUT_MS: '0',
        RATE_LIMIT_TTL_MS: '1000',
        RATE_LIMIT_MAX: '5',
        RATE_LIMIT_TURNS_MAX: '2',
        AUTH_FAILURES_MAX: '3',
        ALLOWED_HOSTS: 'Memory.Example.com, [::1]',
      }),
    ).toEqual({
      adapter: 'fastify',
      bodyLimitBytes: 1_048_576,
      shutdownTimeoutMs: 0,
      rateLimit: { ttlMs: 1000, limit: 5 },
      turnsRateLimit: { ttlMs: 1000, limit: 2 },
      authFailureLimit: { ttlMs: 60_000, limit: 3 },
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      sendTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      pageBytes: 1_048_576,
      allowedHosts: ['memory.example.com', '[::1]'],
    });
    expect(loadHttpConfig({ RATE_LIMIT_MAX: '0' }).rateLimit).toBe(false);
    expect(loadHttpConfig({ HTTP_SEND_TIMEOUT_MS: '0' }).sendTimeoutMs).toBe(0);
    expect(loadHttpConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000' }).keepAliveTimeoutMs).toBe(65_000);
    expect(variableAtFault(() => loadHttpConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '0' }))).toBe(
      'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    );
    expect(loadHttpConfig({ HTTP_PAGE_BYTES: '64kb' }).pageBytes).toBe(65_536);
    expect(loadHttpConfig({ RATE_LIMIT_MAX: '0' }).turnsRateLimit).toBe(false);
    expect(loadHttpConfig({ RATE_LIMIT_TURNS_MAX: '0' }).turnsRateLimit).toBe(false);
    expect(loadHttpConfig({ AUTH_FAILURES_MAX: '0' }).authFailureLimit).toBe(false);
    expect(loadHttpConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadHttpConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe(
      'loopback,10.0.0.0/8',
    );
  });

  it('names the variable at fault', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ HTTP_BODY_LIMIT: '1gb' }, 'HTTP_BODY_LIMIT'],
      [{ HTTP_BODY_LIMIT: '1.5mb' }, 'HTTP_BODY_LIMIT'],
      [{ HTTP_BODY_LIMIT: '0' }, 'HTTP_BODY_LIMIT'],
      [{ HTTP_BODY_LIMIT: '-1kb' }, 'HTTP_BODY_LIMIT'],
      [{ HTTP_BODY_LIMIT: '2048mb' }, 'HTTP_BODY_LIMIT'],
      [{ SHUTDOWN_TIMEOUT_MS: '-5' }, 'SHUTDOWN_TIMEOUT_MS'],
      [{ SHUTDOWN_TIMEOUT_MS: '10s' }, 'SHUTDOWN_TIMEOUT_MS'],
      [{ RATE_LIMIT_TTL_MS: '0' }, 'RATE_LIMIT_TTL_MS'],
      [{ RATE_LIMIT_MAX: '-1' }, 'RATE_LIMIT_MAX'],
      [{ RATE_LIMIT_MAX: 'lots' }, 'RATE_LIMIT_MAX'],
      [{ RATE_LIMIT_TURNS_MAX: '-1' }, 'RATE_LIMIT_TURNS_MAX'],
      [{ AUTH_FAILURES_MAX: 'x' }, 'AUTH_FAILURES_MAX'],
      [{ ALLOWED_HOSTS: 'https://memory.example.com' }, 'ALLOWED_HOSTS'],
      [{ ALLOWED_HOSTS: 'memory.example.com:443' }, 'ALLOWED_HOSTS'],
      [{ ALLOWED_HOSTS: 'a,,b' }, 'ALLOWED_HOSTS'],
      [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY'],
      [{ HTTP_SEND_TIMEOUT_MS: '500' }, 'HTTP_SEND_TIMEOUT_MS'],
      [{ HTTP_PAGE_BYTES: '100' }, 'HTTP_PAGE_BYTES'],
    ];
    for (const [env, variable] of cases)
      expect(variableAtFault(() => loadHttpConfig(env))).toBe(variable);
  });
});
