import { describe, expect, it } from '@jest/globals';
import { loadAgentConfig } from './agent.config.js';
import { errorOf, variableAtFault } from './config-error.testing.js';

describe('agent configuration', () => {
  it('sends what fits a token budget, the whole history with 0, and refuses both policies at once', () => {
    expect(loadAgentConfig({ AGENT_MEMORY_MAX_TOKENS: '20000' }).memory).toEqual({
      maxTokens: 20_000,
    });
    expect(loadAgentConfig({ AGENT_MEMORY_MAX_TOKENS: '0' }).memory).toBe('default');
    expect(
      variableAtFault(() =>
        loadAgentConfig({ AGENT_MEMORY_WINDOW: '10', AGENT_MEMORY_MAX_TOKENS: '100' }),
      ),
    ).toBe('AGENT_MEMORY_MAX_TOKENS');
  });

  it('defaults to the shared store under a 6,000-token budget, 10 tool iterations, reject, inline queue of 5 attempts', () => {
    expect(loadAgentConfig({})).toEqual({
      memory: { maxTokens: 6_000 },
      maxToolIterations: 10,
      conflictPolicy: 'reject',
      queue: { driver: 'inline', attempts: 5 },
      recall: false,
      titles: 'first-message',
      profile: 'demo',
    });
  });

  it('reads every variable', () => {
    expect(
      loadAgentConfig({
        AGENT_SYSTEM_PROMPT: 'You are terse.',
        AGENT_MEMORY_WINDOW: '40',
        AGENT_MAX_TOOL_ITERATIONS: '0',
        AGENT_CONFLICT_POLICY: 'retry',
        AGENT_RUN_ATTEMPTS: '3',
        AGENT_QUEUE: 'inline',
        REDIS_URL: 'redis://cache:6379',
        AGENT_RECALL: 'true',
        AGENT_TITLES: 'model',
        AGENT_PROFILE: 'off',
      }),
    ).toEqual({
      systemPrompt: 'You are terse.',
      memory: { window: 40 },
      maxToolIterations: 0,
      conflictPolicy: 'retry',
      queue: { driver: 'inline', attempts: 3 },
      recall: true,
      titles: 'model',
      profile: 'off',
    });
  });

  it('AGENT_RECALL_MESSAGES turns recall on with the messages indexed', () => {
    expect(loadAgentConfig({ AGENT_RECALL_MESSAGES: 'true' }).recall).toEqual({ messages: true });
    expect(loadAgentConfig({ AGENT_RECALL_MESSAGES: 'false' }).recall).toBe(false);
    expect(() => loadAgentConfig({ AGENT_RECALL_MESSAGES: 'maybe' })).toThrow(
      /AGENT_RECALL_MESSAGES/,
    );
  });

  it('keeps the runs beside a Redis history under REDIS_KEY_PREFIX (else the agent default)', () => {
    expect(loadAgentConfig({ REDIS_URL: 'redis://h' }).runs).toBeUndefined();
    expect(
      loadAgentConfig({
        CHAT_MEMORY_BACKEND: 'redis',
        REDIS_URL: 'redis://h',
        REDIS_KEY_PREFIX: 'staging:',
      }).runs,
    ).toEqual({ uri: 'redis://h', keyPrefix: 'staging:runs:' });
  });

  it('AGENT_TITLES picks how conversations get their titles', () => {
    expect(loadAgentConfig({}).titles).toBe('first-message');
    expect(loadAgentConfig({ AGENT_TITLES: 'model' }).titles).toBe('model');
    expect(() => loadAgentConfig({ AGENT_TITLES: 'llm' })).toThrow(/AGENT_TITLES/);
  });

  it('uses Bull when REDIS_URL is set, with the queue settings', () => {
    expect(loadAgentConfig({ REDIS_URL: 'redis://cache:6379' }).queue).toEqual({
      driver: 'bull',
      redisUrl: 'redis://cache:6379',
      attempts: 5,
    });
    expect(
      loadAgentConfig({
        REDIS_URL: 'rediss://cache:6380',
        AGENT_QUEUE: 'bull',
        QUEUE_PREFIX: '{agent}',
        QUEUE_LOCK_DURATION_MS: '15000',
        QUEUE_STALLED_INTERVAL_MS: '5000',
      }).queue,
    ).toEqual({
      driver: 'bull',
      redisUrl: 'rediss://cache:6380',
      attempts: 5,
      prefix: '{agent}',
      lockDurationMs: 15_000,
      stalledIntervalMs: 5_000,
    });
    // Under an app key prefix of its own, the queue's follows (unless QUEUE_PREFIX says otherwise).
    const redis = { REDIS_URL: 'redis://cache:6379' };
    expect(loadAgentConfig({ ...redis, REDIS_KEY_PREFIX: 'staging:' }).queue).toMatchObject({
      prefix: 'staging:bull',
    });
    expect(
      loadAgentConfig({ ...redis, REDIS_KEY_PREFIX: 'staging:', QUEUE_PREFIX: 'q' }).queue,
    ).toMatchObject({ prefix: 'q' });
    expect(
      loadAgentConfig({ ...redis, REDIS_KEY_PREFIX: 'agent-memory:' }).queue,
    ).not.toHaveProperty('prefix');
  });

  it('names the variable at fault', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ AGENT_MEMORY_WINDOW: '0' }, 'AGENT_MEMORY_WINDOW'],
      [{ AGENT_MEMORY_WINDOW: 'all' }, 'AGENT_MEMORY_WINDOW'],
      [{ AGENT_MAX_TOOL_ITERATIONS: '-1' }, 'AGENT_MAX_TOOL_ITERATIONS'],
      [{ AGENT_CONFLICT_POLICY: 'merge' }, 'AGENT_CONFLICT_POLICY'],
      [{ AGENT_RUN_ATTEMPTS: '0' }, 'AGENT_RUN_ATTEMPTS'],
      [{ AGENT_QUEUE: 'sqs' }, 'AGENT_QUEUE'],
      [{ AGENT_QUEUE: 'bull' }, 'AGENT_QUEUE'],
      [{ REDIS_URL: 'redis://h', QUEUE_LOCK_DURATION_MS: '0' }, 'QUEUE_LOCK_DURATION_MS'],
      [{ REDIS_URL: 'redis://h', QUEUE_STALLED_INTERVAL_MS: '1s' }, 'QUEUE_STALLED_INTERVAL_MS'],
      [{ REDIS_URL: 'postgres://h' }, 'REDIS_URL'],
      [{ REDIS_URL: 'redis+cluster://h1:7000,,h2:7001' }, 'REDIS_URL'],
      [{ REDIS_URL: 'redis+cluster://h1:7000/2' }, 'REDIS_URL'],
    ];
    for (const [env, variable] of cases)
      expect(variableAtFault(() => loadAgentConfig(env))).toBe(variable);
  });

  it('never prints the Redis password', () => {
    const error = errorOf(() => loadAgentConfig({ REDIS_URL: 'redis://:secret@h:port' }));
    expect(error.message).not.toContain('secret');
    const cluster = errorOf(() => loadAgentConfig({ REDIS_URL: 'redis+cluster://:secret@h:p' }));
    expect(cluster.message).not.toContain('secret');
  });

  it('takes a Redis Cluster URL for the queue', () => {
    const url = 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001';
    expect(loadAgentConfig({ REDIS_URL: url }).queue).toMatchObject({
      driver: 'bull',
      redisUrl: url,
    });
  });
});
