import type { RedisScript } from './redis-script.js';
import { isRedisCluster, type RedisClient } from './redis-client.js';

type Step =
  | { script: RedisScript; keys: readonly string[]; args: readonly (string | number)[] }
  | { command: string; args: readonly (string | number)[] };

/**
 * Scripts and plain commands sent as one pipeline (one round trip). Scripts go by SHA, so a large
 * script's source does not travel with every call; if the server does not know a script (first use,
 * after a restart or `SCRIPT FLUSH`), the scripts it refused are sent again with their source in a
 * second pipeline, together with the plain commands, which therefore must be idempotent (`SADD`,
 * `ZADD XX`, …). A script the server ran is never sent twice.
 *
 * On a Redis Cluster the steps' keys may live on different nodes, so there is no one pipeline:
 * the scripts are sent at once, each to its own slot's node, and the plain commands once every
 * script has answered. A command therefore still follows the scripts before it, as in a pipeline
 * (the long-term store's sweeper set relies on that); it costs one more round trip.
 */
export class RedisScriptPipeline {
  private readonly steps: Step[] = [];

  constructor(private readonly client: RedisClient) {}

  /** Adds a script call. */
  script(script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): this {
    this.steps.push({ script, keys, args });
    return this;
  }

  /** Adds an idempotent plain command, e.g. `command('sadd', key, member)`. */
  command(name: string, ...args: Array<string | number>): this {
    this.steps.push({ command: name, args });
    return this;
  }

  /** Runs the pipeline; returns each step's result, throwing the first error. */
  async exec(): Promise<unknown[]> {
    if (isRedisCluster(this.client)) return this.execOnCluster();
    const first = await this.send(this.steps.map(() => 'sha'));
    const refused = first.map(
      ([error], index) => isNoScript(error) && isScript(this.steps[index]!),
    );
    if (!refused.includes(true)) return first.map(unwrap);
    const second = await this.send(
      this.steps.map((step, index) =>
        refused[index] ? 'source' : isScript(step) ? 'skip' : 'sha',
      ),
    );
    return first.map((result, index) => unwrap(refused[index] ? second[index]! : result));
  }

  /** The scripts at once (each falling back to its source on its own), then the commands. */
  private async execOnCluster(): Promise<unknown[]> {
    const client = this.client;
    const results: Array<Promise<unknown>> = this.steps.map((step) =>
      isScript(step) ? step.script.run(client, step.keys, step.args) : Promise.resolve(),
    );
    await Promise.allSettled(results);
    this.steps.forEach((step, index) => {
      if (!isScript(step)) results[index] = client.call(step.command, ...step.args);
    });
    return Promise.all(results);
  }

  /** Sends the steps not skipped, scripts by SHA or by source; results indexed like the steps. */
  private async send(
    modes: Array<'sha' | 'source' | 'skip'>,
  ): Promise<Array<[Error | null, unknown]>> {
    const pipeline = this.client.pipeline();
    const sent: number[] = [];
    this.steps.forEach((step, index) => {
      if (modes[index] === 'skip') return;
      sent.push(index);
      if (isScript(step))
        step.script.queue(pipeline, step.keys, step.args, modes[index] === 'source');
      else pipeline.call(step.command, ...step.args);
    });
    const results = (await pipeline.exec()) ?? [];
    const byStep: Array<[Error | null, unknown]> = new Array(this.steps.length);
    sent.forEach((index, n) => (byStep[index] = results[n] ?? [null, undefined]));
    return byStep;
  }
}

function isScript(step: Step): step is Extract<Step, { script: RedisScript }> {
  return 'script' in step;
}

function isNoScript(error: Error | null): boolean {
  return error !== null && error.message.startsWith('NOSCRIPT');
}

function unwrap([error, value]: [Error | null, unknown]): unknown {
  if (error) throw error;
  return value;
}
