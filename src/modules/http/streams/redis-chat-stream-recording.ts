import type { Logger } from '@nestjs/common';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { ChatStreamLimits, ChatStreamRecording } from './chat-streams.interface.js';

/** How often a recording looks for a Stop from another instance, and a reader for new chunks. */
export const POLL_MS = 100;

/**
 * How a recording says its instance is alive: it renews a key every `everyMs` that expires
 * `aliveMs` later. Without it, a reader or a Stop takes the turn for ended (its instance died).
 */
export interface Heartbeat {
  everyMs: number;
  aliveMs: number;
}

/**
 * A beat a second; an instance silent for 15 s is taken for dead (a GC pause or a busy event loop
 * of a few seconds is not).
 */
export const DEFAULT_HEARTBEAT: Heartbeat = { everyMs: 1_000, aliveMs: 15_000 };

/** A batch of commands sent in one round trip. */
type Pipeline = ReturnType<RedisClient['pipeline']>;

/** The keys of one conversation's streams; one hash tag, so one cluster slot. */
export class StreamKeys {
  private readonly base: string;
  constructor(prefix: string, conversationKey: string) {
    this.base = `${prefix}${taggedRedisId(conversationKey)}`;
  }
  /** The run id of the newest turn's stream. */
  get current(): string {
    return `${this.base}:current`;
  }
  /** The run id a Stop asks to stop. */
  get stop(): string {
    return `${this.base}:stop`;
  }
  /** A run's chunks (a Redis stream; an entry `e` marks the end). */
  chunks(runId: string): string {
    return `${this.base}:chunks:${runId}`;
  }
  /** A run's state: `user` (the user chunk), `version` once committed, `ended`, `overflow`. */
  state(runId: string): string {
    return `${this.base}:state:${runId}`;
  }
  /** Present while the instance recording a run is alive (its heartbeat renews it). */
  alive(runId: string): string {
    return `${this.base}:alive:${runId}`;
  }
}

/**
 * A recording on Redis: chunks are queued and written in pipelined batches, in order. While it
 * runs, it polls the stop key and renews its heartbeat (the `alive` key, and the bound of its
 * other keys, so a long turn stays stoppable and its chunks stay whole).
 */
export class RedisRecording implements ChatStreamRecording {
  private readonly stopper = new AbortController();
  private queue: Array<(pipeline: Pipeline) => void> = [];
  private flushing?: Promise<void>;
  private bytes = 0;
  private overflow = false;
  private ended = false;
  private readonly poll: NodeJS.Timeout;
  private readonly beat: NodeJS.Timeout;

  /** A batch failed: nothing more is written but the end, and readers are told to stop. */
  private broken = false;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: StreamKeys,
    readonly runId: string,
    private readonly limits: ChatStreamLimits,
    private readonly onEnd: () => void,
    private readonly logger: Logger,
    private readonly heartbeat: Heartbeat,
  ) {
    // A Stop sent to another instance reaches this one through the stop key.
    this.poll = setInterval(() => void this.checkStop(), POLL_MS);
    this.poll.unref();
    // Renewed well before the keys' own bound runs out, whatever the two are set to.
    const every = Math.min(heartbeat.everyMs, limits.maxAgeMs / 4);
    this.beat = setInterval(() => void this.renew(), every);
    this.beat.unref();
  }

  get stopped(): AbortSignal {
    return this.stopper.signal;
  }

  /** A Stop sent to this instance: no round trip. */
  stopHere(): void {
    this.stopper.abort();
  }

  append(chunk: string): void {
    if (this.ended || this.overflow || this.broken) return;
    this.bytes += Buffer.byteLength(chunk);
    if (this.bytes > this.limits.maxBytes) {
      this.overflow = true;
      this.enqueue((p) => p.hset(this.keys.state(this.runId), 'overflow', '1'));
      return;
    }
    this.enqueue((p) => p.xadd(this.keys.chunks(this.runId), '*', 'c', chunk));
  }

  committed(version: number): void {
    this.enqueue((p) => p.hset(this.keys.state(this.runId), 'version', String(version)));
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.poll);
    clearInterval(this.beat);
    const keep = this.limits.keepMs;
    this.enqueue((p) =>
      p
        .xadd(this.keys.chunks(this.runId), '*', 'e', '1')
        .hset(this.keys.state(this.runId), 'ended', '1')
        .pexpire(this.keys.chunks(this.runId), keep)
        .pexpire(this.keys.state(this.runId), keep),
    );
    try {
      await this.drain();
    } finally {
      this.onEnd();
    }
  }

  private enqueue(write: (pipeline: Pipeline) => void): void {
    this.queue.push(write);
    this.flushing ??= this.flush();
  }

  /**
   * Writes what is queued, batch after batch, in order, until the queue is empty; `flushing` is
   * cleared in the same tick as the last emptiness check, so nothing queued is ever left behind.
   */
  private async flush(): Promise<void> {
    // Tokens of one tick go in one batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const pipeline = this.client.pipeline();
      for (const write of batch) write(pipeline);
      // The first chunk creates the stream key: bound at once (the heartbeat renews it after).
      if (!this.ended) pipeline.pexpire(this.keys.chunks(this.runId), this.limits.maxAgeMs);
      const failed = await pipeline.exec().then(
        (results) => results?.find(([error]) => error)?.[0] ?? undefined,
        (error: Error) => error,
      );
      if (failed) this.fail(failed);
    }
    this.flushing = undefined;
  }

  /** A lost batch leaves a gap: the stream stops being resumable, readers end. */
  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = true;
    this.logger.warn(`Chat stream of run ${this.runId} no longer recorded: ${error.message}`);
    this.queue.unshift((p) => p.hset(this.keys.state(this.runId), 'overflow', '1'));
  }

  private async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Says this instance still runs the turn, and keeps the run's keys for another bound. */
  private async renew(): Promise<void> {
    const bound = this.limits.maxAgeMs;
    await this.client
      .pipeline()
      .set(this.keys.alive(this.runId), '1', 'PX', this.heartbeat.aliveMs)
      .pexpire(this.keys.chunks(this.runId), bound)
      .pexpire(this.keys.state(this.runId), bound)
      .pexpire(this.keys.current, bound)
      .exec()
      .catch(() => undefined);
  }

  private async checkStop(): Promise<void> {
    if (this.stopper.signal.aborted) return;
    const asked = await this.client.get(this.keys.stop).catch(() => null);
    if (asked === this.runId) this.stopper.abort();
  }
}
