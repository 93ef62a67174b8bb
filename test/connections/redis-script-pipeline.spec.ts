import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { RedisScriptPipeline } from '../../src/modules/connections/redis/redis-script-pipeline.js';
import { RedisScript } from '../../src/modules/connections/redis/redis-script.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';

const prefix = `script-pipeline-${process.pid}-${Date.now()}`;
const counter = (name: string) => `${prefix}:${name}`;
/** Each script has its own source (hence its own SHA) so one can be known and the other not. */
const incrementA = new RedisScript(`return redis.call('INCR', KEYS[1]) -- a`);
const incrementB = new RedisScript(`return redis.call('INCR', KEYS[1]) -- b`);
const failing = new RedisScript(`return redis.error_reply('BOOM from the script')`);

describe('RedisScriptPipeline (real Redis)', () => {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true }); // no socket unless a test runs

  beforeEach(() => deleteRedisKeys(client, `${prefix}:*`));

  afterAll(async () => {
    await deleteRedisKeys(client, `${prefix}:*`);
    await client.quit();
  });

  it('runs scripts and commands in order and returns each result', async () => {
    await incrementA.run(client, [counter('a')], []); // the server knows the script now
    const results = await new RedisScriptPipeline(client)
      .script(incrementA, [counter('a')], [])
      .command('sadd', counter('set'), 'x')
      .script(incrementA, [counter('a')], [])
      .exec();
    expect(results).toEqual([2, 1, 3]);
  });

  it('resends only the scripts the server refused, by source, after SCRIPT FLUSH', async () => {
    await client.script('FLUSH');
    await incrementA.run(client, [counter('a')], []); // A known again, B not
    const results = await new RedisScriptPipeline(client)
      .script(incrementA, [counter('a')], [])
      .script(incrementB, [counter('b')], [])
      .command('sadd', counter('set'), 'x')
      .script(incrementB, [counter('b')], [])
      .exec();
    // A ran once in the pipeline (2), B's two calls ran once each after the resend (1, 2), the
    // plain command ran twice but is idempotent (its first result, 1, is the one returned).
    expect(results).toEqual([2, 1, 1, 2]);
    expect(await client.get(counter('a'))).toBe('2');
    expect(await client.get(counter('b'))).toBe('2');
    expect(await client.smembers(counter('set'))).toEqual(['x']);
    // Now the server knows B: a second pipeline needs no resend.
    expect(
      await new RedisScriptPipeline(client).script(incrementB, [counter('b')], []).exec(),
    ).toEqual([3]);
  });

  it('RedisScript.run sends the source once the server has forgotten the script, and runs it once', async () => {
    await incrementA.run(client, [counter('run')], []);
    await client.script('FLUSH');
    expect(await incrementA.run(client, [counter('run')], [])).toBe(2);
    expect(await incrementA.run(client, [counter('run')], [])).toBe(3);
    await expect(failing.run(client, [], [])).rejects.toThrow('BOOM from the script');
  });

  it('throws the first error a step returned', async () => {
    const pipeline = new RedisScriptPipeline(client)
      .command('sadd', counter('set'), 'x')
      .script(failing, [counter('a')], []);
    await expect(pipeline.exec()).rejects.toThrow('BOOM from the script');
  });
});
