import { describe, expect, it } from '@jest/globals';
import { MissingDriverError } from 'nest-agent-memory';
import { loadAllConfig } from '../config/validate-env.js';
import { assertDriversInstalled, requiredDrivers } from './required-drivers.js';

describe('the packages the example app needs', () => {
  it('names the HTTP platform’s packages, Fastify by default, Express on HTTP_ADAPTER=express', () => {
    const fastify = requiredDrivers(loadAllConfig({}));
    expect(fastify.get('@nestjs/platform-fastify')).toBe('HTTP_ADAPTER=fastify');
    expect(fastify.get('@fastify/static')).toBe('HTTP_ADAPTER=fastify');
    expect(fastify.has('@nestjs/platform-express')).toBe(false);
    const express = requiredDrivers(loadAllConfig({ HTTP_ADAPTER: 'express' }));
    expect(express.get('@nestjs/platform-express')).toBe('HTTP_ADAPTER=express');
    expect(express.has('@nestjs/platform-fastify')).toBe(false);
  });

  it('adds the queue board of the platform with the Bull queue', () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', AGENT_QUEUE: 'bull' };
    expect(requiredDrivers(loadAllConfig(env)).has('@bull-board/fastify')).toBe(true);
    expect(
      requiredDrivers(loadAllConfig({ ...env, HTTP_ADAPTER: 'express' })).has(
        '@bull-board/express',
      ),
    ).toBe(true);
  });

  it('reports every missing package at once, with what needs it', () => {
    const missing = new Set(['@nestjs/platform-fastify', 'better-sqlite3']);
    const check = () =>
      assertDriversInstalled(loadAllConfig({}), (name) => {
        if (missing.has(name)) throw new Error('not found');
      });
    expect(check).toThrow(MissingDriverError);
    expect(check).toThrow(
      /@nestjs\/platform-fastify.*better-sqlite3|better-sqlite3.*@nestjs\/platform-fastify/s,
    );
    expect(check).toThrow(/HTTP_ADAPTER=fastify/);
  });
});
