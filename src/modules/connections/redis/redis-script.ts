import { createHash } from 'node:crypto';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis-client.js';

/**
 * A Lua script run by SHA (`EVALSHA`), falling back to `EVAL` once when the server does not know it
 * yet (after a restart or `SCRIPT FLUSH`). Unlike `defineCommand`, it leaves the client untouched, so
 * it is safe on a client the user owns.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Queues the script by SHA (`EVALSHA`), or with its source (`EVAL`) when `bySource`. */
  queue(
    pipeline: ChainableCommander,
    keys: readonly string[],
    args: readonly (string | number)[],
    bySource = false,
  ): void {
    if (bySource) pipeline.eval(this.source, keys.length, ...keys, ...args);
    else pipeline.evalsha(this.sha, keys.length, ...keys, ...args);
  }

  /** Runs the script: one round trip, except the first run on a server that has not seen it. */
  run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    return client.evalsha(this.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    });
  }
}
