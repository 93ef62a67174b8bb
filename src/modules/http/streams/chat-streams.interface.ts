/**
 * Where the chat route keeps the stream of each running turn, so a client that reloaded or lost
 * its connection picks the reply up where it is (the AI SDK's `resumeStream`), and a Stop reaches
 * the turn wherever it runs. One stream per conversation: the newest turn's. In process memory by
 * default (one instance), or on Redis when the app runs several.
 *
 * Chunks are the JSON texts of the UI message stream protocol, recorded as the turn writes them,
 * whether or not its own client is still there.
 */
export interface ChatStreams {
  /**
   * Starts recording a turn's stream; it replaces an earlier one of the conversation (whose own
   * recording goes on, no longer found by readers). `userChunk` is what a reader receives first:
   * the turn's user message (not in the stored history until the turn commits).
   */
  open(
    conversationKey: string,
    turn: { runId: string; userChunk: string },
  ): Promise<ChatStreamRecording>;
  /**
   * The conversation's stream from its first chunk, then live until it ends — or `undefined` when
   * there is nothing to resume: no stream; one that ended without a commit (failed, stopped); one
   * whose commit is in the history the reader has (`seenVersion` ≥ the commit's version; without
   * `seenVersion`, any ended stream); one that outgrew the recording's byte cap.
   */
  read(
    conversationKey: string,
    seenVersion: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<string> | undefined>;
  /**
   * Stops the conversation's running turn and waits (up to 10 s) for its end:
   * `'stopped'` (nothing of it is stored), `'saved'` (it had committed before the Stop reached it),
   * `'none'` (no turn is running) or `'stopping'` (asked, not ended yet).
   */
  stop(conversationKey: string): Promise<StopOutcome>;
  /**
   * Drops the conversation's recording (the conversation was deleted): nothing of it is resumed
   * any more. Call it once {@link stop} said no turn runs.
   */
  forget(conversationKey: string): Promise<void>;
  /** Stops polling and timers (the application is shutting down). */
  close(): Promise<void>;
}

/** The recording of one turn's stream, written by the route that runs the turn. */
export interface ChatStreamRecording {
  /** Aborted when a Stop reached this turn (from any instance). */
  readonly stopped: AbortSignal;
  /** One chunk of the protocol (its JSON text). */
  append(chunk: string): void;
  /** The turn committed: the conversation's version right after it. */
  committed(version: number): void;
  /** The stream is over (finished, failed or stopped): readers end, the record lingers a while. */
  end(): Promise<void>;
}

/**
 * Thrown by a reader whose stream stopped being recorded before its end (it outgrew the byte cap,
 * its record was lost or expired, or the store closed): the reply goes on, but not for this reader.
 */
export class StreamCutError extends Error {
  constructor() {
    super('The stream is no longer recorded: reload the conversation to see the reply');
    this.name = 'StreamCutError';
  }
}

/** What a Stop came to: see {@link ChatStreams.stop}. */
export type StopOutcome = 'stopped' | 'saved' | 'none' | 'stopping';

/** How long a Stop waits for its turn to end. */
export const STOP_WAIT_MS = 10_000;

/** Limits of a {@link ChatStreams} store. */
export interface ChatStreamLimits {
  /** Most bytes of chunks one recording keeps; past it the stream is no longer resumable. */
  maxBytes: number;
  /** How long an ended stream stays readable (a reader that loaded the history just before the commit). */
  keepMs: number;
  /**
   * Longest a reader follows one stream. In process, nothing more is recorded past it (the turn
   * stays stoppable until it ends); on Redis, how long a run's keys outlive its instance's last
   * heartbeat (an instance that died without ending its turns).
   */
  maxAgeMs: number;
}

/** Defaults: 4 MiB per stream, ended streams kept 60 s, 15 minutes at most. */
export const DEFAULT_CHAT_STREAM_LIMITS: ChatStreamLimits = {
  maxBytes: 4 * 1024 * 1024,
  keepMs: 60_000,
  maxAgeMs: 15 * 60_000,
};

/** Whether a stream in this state is worth replaying to a reader who has `seenVersion`. */
export function isResumable(
  state: { ended: boolean; version?: number; overflow: boolean },
  seenVersion: number | undefined,
): boolean {
  if (state.overflow) return false;
  if (state.version !== undefined) return seenVersion !== undefined && seenVersion < state.version;
  return !state.ended;
}
