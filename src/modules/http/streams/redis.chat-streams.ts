import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import { Logger } from '@nestjs/common';
import {
  STOP_WAIT_MS,
  type StopOutcome,
  type ChatStreamLimits,
  type ChatStreamRecording,
  type ChatStreams,
  DEFAULT_CHAT_STREAM_LIMITS,
  isResumable,
} from './chat-streams.interface.js';

/** How often a recording looks for a Stop from another instance, and a reader for new chunks. */
const POLL_MS = 100;
/** Chunks a reader takes per round trip. */
const READ_BATCH = 500;
/** How long a Stop waits in Redis for the instance running the turn to see it. */
const STOP_KEY_MS = 30_000;

/** Deletes KEYS[1] if it holds ARGV[1]. */
const DELETE_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A batch of commands sent in one round trip. */
type Pipeline = ReturnType<RedisClient['pipeline']>;

/** The keys of one conversation's streams; one hash tag, so one cluster slot. */
class StreamKeys {
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
}

/** A recording on Redis: chunks are queued and written in pipelined batches, in order. */
class RedisRecording implements ChatStreamRecording {
  private readonly stopper = new AbortController();
  private queue: Array<(pipeline: Pipeline) => void> = [];
  private flushing?: Promise<void>;
  private bytes = 0;
  private overflow = false;
  private ended = false;
  private readonly poll: NodeJS.Timeout;

  /** A batch failed: nothing more is written but the end, and readers are told to stop. */
  private broken = false;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: StreamKeys,
    readonly runId: string,
    private readonly limits: ChatStreamLimits,
    private readonly onEnd: () => void,
    private readonly logger: Logger,
  ) {
    // A Stop sent to another instance reaches this one through the stop key.
    this.poll = setInterval(() => void this.checkStop(), POLL_MS);
    this.poll.unref();
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
      // Readers' keys must not vanish mid-turn: their bound moves with each batch.
      const bound = this.limits.maxAgeMs;
      if (!this.ended)
        pipeline
          .pexpire(this.keys.chunks(this.runId), bound)
          .pexpire(this.keys.state(this.runId), bound)
          .pexpire(this.keys.current, bound);
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

  private async checkStop(): Promise<void> {
    if (this.stopper.signal.aborted) return;
    const asked = await this.client.get(this.keys.stop).catch(() => null);
    if (asked === this.runId) this.stopper.abort();
  }
}

/**
 * {@link ChatStreams} on Redis, for apps with several instances: a reload or a Stop may reach any
 * of them. Each turn's chunks are a Redis stream under the conversation's hash tag, written in
 * pipelined batches; readers poll it every 100 ms; a Stop is a key the recording instance polls as
 * often. Keys expire `keepMs` after the stream ends (`maxAgeMs` at most while it runs).
 */
export class RedisChatStreams implements ChatStreams {
  /** This instance's recordings, so a Stop that lands here needs no round trip. */
  private readonly local = new Map<string, RedisRecording>();
  private readonly logger = new Logger('AgentMemoryHttp');
  private closed = false;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = 'agent-memory:chat-streams:',
    private readonly limits: ChatStreamLimits = DEFAULT_CHAT_STREAM_LIMITS,
  ) {}

  async open(
    conversationKey: string,
    turn: { runId: string; userChunk: string },
  ): Promise<ChatStreamRecording> {
    const keys = new StreamKeys(this.keyPrefix, conversationKey);
    const bound = this.limits.maxAgeMs;
    // A run id comes back when a keyed turn is retried: nothing of the earlier attempt (its end,
    // its overflow, a Stop asked of it) may reach this one.
    await this.client
      .multi()
      .del(keys.chunks(turn.runId), keys.state(turn.runId))
      .eval(DELETE_IF_EQUAL, 1, keys.stop, turn.runId)
      .hset(keys.state(turn.runId), 'user', turn.userChunk)
      .pexpire(keys.state(turn.runId), bound)
      .set(keys.current, turn.runId, 'PX', bound)
      .exec();
    const recording: RedisRecording = new RedisRecording(
      this.client,
      keys,
      turn.runId,
      this.limits,
      () => {
        if (this.local.get(conversationKey) === recording) this.local.delete(conversationKey);
      },
      this.logger,
    );
    this.local.set(conversationKey, recording);
    return recording;
  }

  async read(
    conversationKey: string,
    seenVersion: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<string> | undefined> {
    const keys = new StreamKeys(this.keyPrefix, conversationKey);
    const runId = await this.client.get(keys.current);
    if (runId === null) return undefined;
    const state = await this.client.hgetall(keys.state(runId));
    if (state['user'] === undefined) return undefined;
    const resumable = isResumable(
      {
        ended: state['ended'] === '1',
        overflow: state['overflow'] === '1',
        ...(state['version'] !== undefined ? { version: Number(state['version']) } : {}),
      },
      seenVersion,
    );
    if (!resumable) return undefined;
    return this.follow(keys, runId, state['user'], signal);
  }

  async stop(conversationKey: string): Promise<StopOutcome> {
    const keys = new StreamKeys(this.keyPrefix, conversationKey);
    const runId = await this.client.get(keys.current);
    if (runId === null) return 'none';
    const before = await this.stateOf(keys, runId);
    // Over: nothing runs. Committed, still ending: too late to stop it.
    if (before === 'ended' || before === 'ended-saved' || before === 'gone') return 'none';
    if (before === 'saved') return 'saved';
    const here = this.local.get(conversationKey);
    if (here?.runId === runId) here.stopHere();
    // The instance running the turn polls this key (its lifetime outlasts any poll).
    else await this.client.set(keys.stop, runId, 'PX', STOP_KEY_MS);
    const deadline = Date.now() + STOP_WAIT_MS;
    while (Date.now() < deadline) {
      await sleep(POLL_MS);
      const state = await this.stateOf(keys, runId);
      if (state === 'ended-saved' || state === 'saved') return 'saved';
      if (state !== 'running') return 'stopped';
    }
    return 'stopping';
  }

  /** Where a run's stream stands: running or committed (`saved`), each ended or not; or gone. */
  private async stateOf(
    keys: StreamKeys,
    runId: string,
  ): Promise<'running' | 'saved' | 'ended' | 'ended-saved' | 'gone'> {
    const [user, ended, version] = await this.client.hmget(
      keys.state(runId),
      'user',
      'ended',
      'version',
    );
    if (user === null) return 'gone';
    if (ended === '1') return version === null ? 'ended' : 'ended-saved';
    return version === null ? 'running' : 'saved';
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.local.values()].map((recording) => recording.end()));
    this.local.clear();
  }

  /** The user chunk, then the stream's chunks from the first, polling until the end entry. */
  private async *follow(
    keys: StreamKeys,
    runId: string,
    userChunk: string,
    signal: AbortSignal,
  ): AsyncIterable<string> {
    yield userChunk;
    const until = Date.now() + this.limits.maxAgeMs;
    let after = '-';
    while (!signal.aborted && !this.closed && Date.now() < until) {
      const entries = (await this.client.xrange(
        keys.chunks(runId),
        after === '-' ? '-' : `(${after}`,
        '+',
        'COUNT',
        READ_BATCH,
      )) as Array<[string, string[]]>;
      for (const [id, fields] of entries) {
        after = id;
        if (fields[0] === 'e') return;
        yield fields[1]!;
      }
      if (entries.length < READ_BATCH) {
        const [overflow, user] = await this.client.hmget(keys.state(runId), 'overflow', 'user');
        // The recording outgrew its cap, or its keys expired: nothing more will come.
        if (overflow === '1' || user === null) return;
        await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
