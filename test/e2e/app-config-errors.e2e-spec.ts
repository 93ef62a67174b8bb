import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/test-databases.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * A misconfigured app stops before any module or HTTP platform loads: these cases run once (the
 * lifecycle suites that depend on the platform run on Fastify and on Express).
 */
describe('configuration errors stop the app, naming the variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ CHAT_MEMORY_BACKEND: 'mongo' }, 'CHAT_MEMORY_BACKEND'],
    [{ LONGTERM_MEMORY_URI: 'ftp://host/x' }, 'LONGTERM_MEMORY_URI'],
    [{ LLM_PROVIDER: 'anthropic' }, 'LLM_MODEL'],
    [{ OPENAI_BASE_URL: 'not a url' }, 'OPENAI_BASE_URL'],
    [{ LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'llama3.2' }, 'LLM_BASE_URL'],
    [{ AGENT_MEMORY_WINDOW: '0' }, 'AGENT_MEMORY_WINDOW'],
    [{ AGENT_CONFLICT_POLICY: 'maybe' }, 'AGENT_CONFLICT_POLICY'],
    [{ AGENT_QUEUE: 'bull' }, 'AGENT_QUEUE'],
    [{ API_KEYS: 'no-colon-here' }, 'API_KEYS'],
    [{ API_KEYS: 'acme:fifteen-chars!!' }, 'API_KEYS'], // 15: tenant keys need 16 or more
    [{ ALLOWED_HOSTS: 'https://memory.example.com' }, 'ALLOWED_HOSTS'],
    [{ RATE_LIMIT_TURNS_MAX: '-1' }, 'RATE_LIMIT_TURNS_MAX'],
    [{ HTTP_BODY_LIMIT: 'lots' }, 'HTTP_BODY_LIMIT'],
    [{ RATE_LIMIT_MAX: '-1' }, 'RATE_LIMIT_MAX'],
  ];
  it.each(cases)(
    '%j → exit 1 naming %s',
    async (env, variable) => {
      const child = spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH, SQLITE_PATH: `${tempDir()}/x.sqlite`, ...env },
      });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(output).toContain(`Invalid environment variable ${variable}`);
      expect(output).not.toContain('no-colon-here');
    },
    30_000,
  );
});
