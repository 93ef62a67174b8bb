import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  STOP_WAIT_MS,
  type StopOutcome,
  type ChatStreamLimits,
  type ChatStreamRecording,
  type ChatStreams,
  DEFAULT_CHAT_STREAM_LIMITS,
  isResumable,
  StreamCutError,
} from './chat-streams.interface.js';
import {
  DEFAULT_HEARTBEAT,
  type Heartbeat,
  POLL_MS,
  RedisRecording,
  StreamKeys,
} from './redis-chat-stream-recording.js';

/** Chunks a reader takes per round trip. */
const READ_BATCH = 500;
/** How long a Stop waits in Redis for the instance running the turn to see it. */
const STOP_KEY_MS = 30_000;

/**
 * {@link ChatStreams} on Redis, for apps with several instances: a reload or a Stop may reach any
 * of them. Each turn's chunks are a Redis stream under the conversation's hash tag, written in
 * pipelined batches; readers poll it every 100 ms; a Stop is a key the recording instance polls as
 * often. The recording instance renews a heartbeat key each second: a turn whose instance died
 * (silent 15 s) is over for readers and Stops. Keys expire `keepMs` after the stream ends, and
 * `maxAgeMs` after the last heartbeat.
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
    private readonly heartbeat: Heartbeat = DEFAULT_HEARTBEAT,
  ) {}

  async open(
    conversationKey: string,
    turn: { runId: string; userChunk: string },
  ): Promise<ChatStreamRecording> {
    const keys = new StreamKeys(this.keyPrefix, conversationKey);
    const bound = this.limits.maxAgeMs;
    // Keyed by attempt: a run id comes back when a keyed turn is retried, and nothing of the
    // earlier attempt (a late end, an overflow, a Stop asked of it, a reader) may reach this one.
    const attempt = `${turn.runId}~${randomUUID().slice(0, 8)}`;
    await this.client
      .multi()
      // `heartbeat`: this recording renews `alive` (one written before heartbeats never does).
      .hset(keys.state(attempt), 'user', turn.userChunk, 'heartbeat', '1')
      .pexpire(keys.state(attempt), bound)
      .set(keys.alive(attempt), '1', 'PX', this.heartbeat.aliveMs)
      .set(keys.current, attempt, 'PX', bound)
      .exec();
    const recording: RedisRecording = new RedisRecording(
      this.client,
      keys,
      attempt,
      this.limits,
      () => {
        if (this.local.get(conversationKey) === recording) this.local.delete(conversationKey);
      },
      this.logger,
      this.heartbeat,
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
    const [state, alive] = await this.stateAndAlive(keys, runId);
    if (state['user'] === undefined) return undefined;
    const resumable = isResumable(
      {
        // A turn whose instance died is over: nothing more will come.
        ended: state['ended'] === '1' || !alive,
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
    // Over (or its instance died): nothing runs. Committed, still ending: too late to stop it.
    if (before !== 'running' && before !== 'saved') return 'none';
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
      if (state === 'ended' || state === 'gone') return 'stopped';
      // Running, or silent (its instance busy or dead): not known to be over, so not stopped.
    }
    return 'stopping';
  }

  /**
   * Where a run's stream stands: running or committed (`saved`), each ended or not; `silent` when
   * not ended but its instance's heartbeat stopped (dead, or stalled for `aliveMs`); or gone.
   */
  private async stateOf(
    keys: StreamKeys,
    runId: string,
  ): Promise<'running' | 'saved' | 'ended' | 'ended-saved' | 'silent' | 'gone'> {
    const [state, alive] = await this.stateAndAlive(keys, runId);
    if (state['user'] === undefined) return 'gone';
    if (state['ended'] === '1') return state['version'] === undefined ? 'ended' : 'ended-saved';
    if (!alive) return 'silent';
    return state['version'] === undefined ? 'running' : 'saved';
  }

  /** A run's state hash, and whether the instance recording it is alive: one round trip. */
  private async stateAndAlive(
    keys: StreamKeys,
    runId: string,
  ): Promise<[Record<string, string>, boolean]> {
    const results = await this.client
      .pipeline()
      .hgetall(keys.state(runId))
      .exists(keys.alive(runId))
      .exec();
    const failed = results?.find(([error]) => error)?.[0];
    if (!results || failed) throw failed ?? new Error('Redis answered nothing');
    const state = results[0]![1] as Record<string, string>;
    // A recording made before heartbeats existed (an older instance, mid-upgrade) never renews
    // `alive`: it is taken as alive, as it was then.
    return [state, results[1]![1] === 1 || state['heartbeat'] !== '1'];
  }

  async forget(conversationKey: string): Promise<void> {
    // Readers find a stream through `current` only; the run's own keys expire by themselves.
    await this.client.del(new StreamKeys(this.keyPrefix, conversationKey).current);
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
        const [state, alive] = await this.stateAndAlive(keys, runId);
        // The recording outgrew its cap, its keys expired or its instance died (its end entry,
        // written before the heartbeat stops, would have been read): nothing more will come.
        if (state['overflow'] === '1' || state['user'] === undefined || !alive) break;
        await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    }
    // The reader's client left: nothing to say. Else the reply goes on unrecorded: say so.
    if (!signal.aborted) throw new StreamCutError();
  }
}
