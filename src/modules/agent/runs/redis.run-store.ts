import type { Redis } from 'ioredis';
import { RedisScript } from '../../connections/redis/redis-script.js';
import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './run-store.interface.js';

/** KEYS[1] the run's hash; ARGV key, value, retention ms. Sets the expiry on the hash's first write. */
const PUT_IF_ABSENT = new RedisScript(`
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return redis.call('HGET', KEYS[1], ARGV[1])
`);

const PUT = new RedisScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`);

/** Run store on Redis: one hash per run, expiring with the retention (Redis itself sweeps). */
export class RedisRunStore implements RunStore {
  constructor(
    private readonly client: Redis,
    private readonly keyPrefix = 'agent-memory:runs:',
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
  ) {}

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    return (await PUT_IF_ABSENT.run(
      this.client,
      [this.key(runId)],
      [key, value, this.retentionMs],
    )) as string;
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    return (await this.client.hget(this.key(runId), key)) ?? undefined;
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    await PUT.run(this.client, [this.key(runId)], [key, value, this.retentionMs]);
  }

  /** Redis expires whole runs itself. */
  async sweep(): Promise<number> {
    return 0;
  }

  private key(runId: string): string {
    return `${this.keyPrefix}{${runId}}`;
  }
}
