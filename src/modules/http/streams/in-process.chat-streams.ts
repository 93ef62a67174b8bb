import { setTimeout as sleep } from 'node:timers/promises';
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

/** One recorded stream in process memory. */
class Recorded implements ChatStreamRecording {
  readonly chunks: string[] = [];
  ended = false;
  overflow = false;
  version?: number;
  private bytes = 0;
  private readonly stopper = new AbortController();
  private waiters: Array<() => void> = [];

  constructor(
    readonly userChunk: string,
    private readonly limits: ChatStreamLimits,
    private readonly onEnd: () => void,
  ) {}

  get stopped(): AbortSignal {
    return this.stopper.signal;
  }

  /** Aborts the turn unless it has committed or ended, then waits for its end. */
  async stop(): Promise<StopOutcome> {
    // Over: nothing runs. Committed, still ending: too late to stop it.
    if (this.ended) return 'none';
    if (this.version !== undefined) return 'saved';
    this.stopper.abort();
    const deadline = Date.now() + STOP_WAIT_MS;
    while (!this.ended && Date.now() < deadline)
      await Promise.race([this.changed(), sleep(100, undefined, { ref: false })]);
    if (!this.ended) return 'stopping';
    return this.version === undefined ? 'stopped' : 'saved';
  }

  append(chunk: string): void {
    if (this.ended || this.overflow) return;
    this.bytes += Buffer.byteLength(chunk);
    if (this.bytes > this.limits.maxBytes) {
      this.overflow = true;
      this.chunks.length = 0;
    } else this.chunks.push(chunk);
    this.wake();
  }

  committed(version: number): void {
    this.version = version;
  }

  /** Stops recording (past `maxAgeMs`): readers are cut; a Stop still reaches the turn. */
  cut(): void {
    if (this.ended || this.overflow) return;
    this.overflow = true;
    this.chunks.length = 0;
    this.wake();
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.wake();
    this.onEnd();
  }

  /** Resolves at the next append or end. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * {@link ChatStreams} in process memory: right for one instance (a reload that reaches another
 * instance finds nothing to resume; use the Redis store there). Readers follow the recording as
 * it grows; an ended stream is dropped `keepMs` later.
 */
export class InProcessChatStreams implements ChatStreams {
  private readonly streams = new Map<string, Recorded>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly limits: ChatStreamLimits = DEFAULT_CHAT_STREAM_LIMITS) {}

  async open(
    conversationKey: string,
    turn: { runId: string; userChunk: string },
  ): Promise<ChatStreamRecording> {
    // Nothing is recorded past `maxAgeMs`; the turn stays stoppable until it ends (the chat
    // route always ends its recording).
    const bound = this.later(this.limits.maxAgeMs, () => recorded.cut());
    const recorded: Recorded = new Recorded(turn.userChunk, this.limits, () => {
      this.cancel(bound);
      this.later(this.limits.keepMs, () => this.forgetEnded(conversationKey, recorded));
    });
    this.streams.set(conversationKey, recorded);
    return recorded;
  }

  async read(
    conversationKey: string,
    seenVersion: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<string> | undefined> {
    const recorded = this.streams.get(conversationKey);
    if (!recorded || !isResumable(recorded, seenVersion)) return undefined;
    return follow(recorded, signal);
  }

  async stop(conversationKey: string): Promise<StopOutcome> {
    return (await this.streams.get(conversationKey)?.stop()) ?? 'none';
  }

  async forget(conversationKey: string): Promise<void> {
    this.streams.delete(conversationKey);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const recorded of this.streams.values()) await recorded.end();
    this.streams.clear();
  }

  private forgetEnded(conversationKey: string, recorded: Recorded): void {
    if (this.streams.get(conversationKey) === recorded) this.streams.delete(conversationKey);
  }

  private later(ms: number, work: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  private cancel(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }
}

/** The recording's user chunk, its chunks so far, then each new one until it ends or `signal`. */
async function* follow(recorded: Recorded, signal: AbortSignal): AsyncIterable<string> {
  yield recorded.userChunk;
  const aborted = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  let next = 0;
  while (!signal.aborted && !recorded.overflow) {
    while (next < recorded.chunks.length) yield recorded.chunks[next++]!;
    if (recorded.ended) return;
    await Promise.race([recorded.changed(), aborted]);
  }
  // The reader's client left: nothing to say. Else the reply goes on unrecorded: say so.
  if (!signal.aborted) throw new StreamCutError();
}
