/** A query as `pg` takes it: a named (prepared) statement or a text planned per call. */
export interface PgQueryConfig {
  name?: string;
  text: string;
  values: readonly unknown[];
}

/** What the lanes need of a `pg` client. */
interface PgClient {
  pipeline?: boolean;
  connect(): Promise<unknown>;
  query(config: PgQueryConfig): Promise<{ rows: unknown[] }>;
  end(): Promise<unknown>;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
}

/** The pool options the lanes follow. */
interface PgPoolOptions {
  idleTimeoutMillis?: number;
  max?: number;
  /** Client-side timeout: in pipeline mode it would count the wait behind earlier statements. */
  query_timeout?: number;
  /** pg-pool's awaited hook for a new connection (e.g. `SET search_path`). */
  onConnect?: (client: PgClient) => unknown;
}

/** What the lanes need of a `pg-pool` pool: its client class and the options it opens them with. */
export interface PgPoolLike {
  readonly Client?: new (options: unknown) => PgClient;
  readonly options?: PgPoolOptions;
  readonly ending?: boolean;
  query(config: PgQueryConfig): Promise<{ rows: unknown[] }>;
  end(callback?: (error?: unknown) => void): unknown;
  emit?(event: string, ...args: unknown[]): boolean;
  listenerCount?(event: string): number;
}

/**
 * Pipelined connections per pool (fewer where the pool itself is smaller): two kept both cores of
 * the benchmark machine busy; one and four did less.
 */
export const PIPELINE_LANES = 2;

/**
 * A lane whose oldest statement has waited this long is stalled (a slow read, a lock wait): new
 * statements go to another lane, or to the pool, instead of queueing behind it.
 */
export const STALLED_AFTER_MS = 50;

interface Lane {
  readonly client: PgClient;
  /** Settles once the connection is open and the pool's connect hook and listeners have run. */
  readonly ready: Promise<void>;
  /** When each outstanding statement was sent, oldest first. */
  readonly outstanding: Set<{ readonly at: number }>;
  idleSince: number;
  /** Set once the lane is dropped: settles when its connection has ended. */
  ended?: Promise<unknown>;
}

/**
 * The package's own PostgreSQL statements over a few pipelined connections (`pg`'s pipeline mode,
 * pg 8.23 or later) opened beside the pool with its options: a statement is written at once on an
 * idle lane, else the one with the fewest statements outstanding, without waiting for a pool
 * connection or for the lane's earlier answers; the server runs each lane's statements in order,
 * each its own transaction, and one that fails fails alone. Only single, self-contained statements
 * may go here (nothing that relies on a session or on a transaction spanning calls), which is all
 * the stores' executor sends. A statement queues behind the ones before it on its lane: once a
 * lane's oldest has waited {@link STALLED_AFTER_MS}, new statements avoid it, and go to the pool
 * when every lane is stalled. Lanes open when needed (one while statements come one at a time),
 * close after about the pool's idle timeout, are replaced when a connection fails or the server
 * ends its session (every statement in flight on it fails), and end with the pool. Not used where
 * the pool sets `query_timeout`.
 */
export class PgPipelineLanes {
  private readonly lanes: Lane[] = [];
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;
  /** The clock of the current synchronous run, for telling stalled lanes (see {@link now}). */
  private runClock: number | undefined;
  /** Dropped lanes' connections still ending (`close` waits for them too). */
  private readonly ending = new Set<Promise<unknown>>();

  private constructor(
    private readonly pool: PgPoolLike,
    private readonly Client: new (options: unknown) => PgClient,
    private readonly size: number,
  ) {
    const end = pool.end.bind(pool) as () => Promise<void>;
    // The pool's end (TypeORM's `destroy`) ends the lanes too, and reports done once they have.
    (pool as { end: PgPoolLike['end'] }).end = (callback?: (error?: unknown) => void) => {
      const lanesEnded = this.close();
      const ended = end().then(() => lanesEnded);
      if (typeof callback !== 'function') return ended;
      ended.then(() => callback(), callback);
      return undefined;
    };
  }

  /**
   * The lanes of `pool` (made once per pool), or undefined where `pg` cannot pipeline or the pool
   * sets `query_timeout`.
   */
  static of(pool: PgPoolLike, size = PIPELINE_LANES): PgPipelineLanes | undefined {
    if (LANES.has(pool)) return LANES.get(pool);
    const Client = pool.Client;
    const lanes =
      Client !== undefined && !pool.options?.query_timeout && supportsPipeline(Client)
        ? new PgPipelineLanes(pool, Client, Math.max(1, Math.min(size, pool.options?.max ?? size)))
        : undefined;
    LANES.set(pool, lanes);
    return lanes;
  }

  /** Runs one statement on a lane (on the pool itself when every lane is stalled or the pool ends). */
  async query(config: PgQueryConfig): Promise<{ rows: unknown[] }> {
    const lane = this.closed || this.pool.ending ? undefined : this.pick();
    if (lane === undefined) return this.pool.query(config);
    const statement = { at: Date.now() };
    lane.outstanding.add(statement);
    try {
      await lane.ready;
      return await lane.client.query(config);
    } catch (error) {
      // The server ends the session after this error (a terminated backend, a shutdown): the lane
      // goes now, not when the socket's end arrives, so no later statement is written to it.
      if (endsSession(error)) this.drop(lane);
      throw error;
    } finally {
      lane.outstanding.delete(statement);
      if (lane.outstanding.size === 0) {
        lane.idleSince = Date.now();
        if (this.closed) this.drop(lane);
      }
    }
  }

  /** Ends every lane once its statements in flight have settled; settles when all have ended. */
  close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const lanes = [...this.lanes];
    for (const lane of lanes) if (lane.outstanding.size === 0) this.drop(lane);
    return Promise.all([
      ...this.ending,
      ...lanes.map(
        (lane) =>
          new Promise<unknown>((resolve) => {
            if (lane.ended) return resolve(lane.ended);
            lane.client.on('end', () => resolve(undefined));
          }),
      ),
    ]).then(() => undefined);
  }

  /**
   * An idle lane; else a new one while fewer than `size` are open; else the least busy lane that is
   * not stalled; else none (the pool takes the statement).
   */
  private pick(): Lane | undefined {
    const now = this.now();
    let best: Lane | undefined;
    for (const lane of this.lanes) {
      if (lane.outstanding.size === 0) return lane;
      const oldest = lane.outstanding.values().next().value!;
      if (now - oldest.at >= STALLED_AFTER_MS) continue;
      if (best === undefined || lane.outstanding.size < best.outstanding.size) best = lane;
    }
    return this.lanes.length < this.size ? this.open() : best;
  }

  /**
   * The time lanes are judged stalled by, read once per synchronous run of statements (until the
   * next microtask). No answer can arrive within one run, so a lane cannot fall behind during it:
   * reading the clock per statement would count the process's own pauses (a GC, a busy core) as a
   * slow server, and send the rest of a burst to the pool. (A statement's own start is its real
   * send time, so a pause is not counted against it in later runs either.) The other side: a run
   * that keeps the CPU long keeps using a lane that really stalled during it, until it ends.
   */
  private now(): number {
    if (this.runClock === undefined) {
      this.runClock = Date.now();
      queueMicrotask(() => (this.runClock = undefined));
    }
    return this.runClock;
  }

  private open(): Lane {
    const client = new this.Client(this.pool.options);
    client.pipeline = true;
    const lane: Lane = {
      client,
      ready: client.connect().then(async () => {
        await this.pool.options?.onConnect?.(client);
        this.pool.emit?.('connect', client);
      }),
      outstanding: new Set(),
      idleSince: Date.now(),
    };
    // A failed connection's statements fail with its error; the lane is replaced on next use.
    lane.ready.catch(() => this.drop(lane));
    client.on('error', (error) => {
      this.drop(lane);
      // As pg-pool reports an idle client's error (TypeORM logs it); never an unhandled 'error'.
      if ((this.pool.listenerCount?.('error') ?? 0) > 0) this.pool.emit?.('error', error, client);
    });
    client.on('end', () => this.drop(lane));
    this.lanes.push(lane);
    this.sweepIdle();
    return lane;
  }

  /** Forgets a lane and ends its connection (once). */
  private drop(lane: Lane): void {
    if (lane.ended) return;
    // Marked before the connection's end runs, so its 'end' event finds the lane dropped already.
    const ended = Promise.resolve()
      .then(() => lane.client.end())
      .catch(() => undefined);
    lane.ended = ended;
    this.ending.add(ended);
    void ended.then(() => this.ending.delete(ended));
    this.lanes.splice(this.lanes.indexOf(lane), 1);
    if (this.lanes.length === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Closes lanes idle for the pool's idle timeout (checked on an unreferenced timer). */
  private sweepIdle(): void {
    const idleMs = this.pool.options?.idleTimeoutMillis ?? 10_000;
    if (this.sweeper !== undefined || !(idleMs > 0)) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const lane of [...this.lanes])
          if (lane.outstanding.size === 0 && now - lane.idleSince >= idleMs) this.drop(lane);
      },
      Math.max(10, idleMs / 2),
    );
    this.sweeper.unref();
  }
}

/** Lanes per pool; undefined where the pool's `pg` has no pipeline mode. */
const LANES = new WeakMap<PgPoolLike, PgPipelineLanes | undefined>();

/**
 * Whether a statement's error ends the server session it ran on: severity FATAL or PANIC, or an
 * operator intervention (SQLSTATE class 57P: a terminated backend, a shutdown, a dropped database),
 * whose code holds where the server's messages, severity included, are translated (`lc_messages`).
 */
function endsSession(error: unknown): boolean {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  return (
    severity === 'FATAL' ||
    severity === 'PANIC' ||
    (typeof code === 'string' && code.startsWith('57P'))
  );
}

/** True where `pg`'s Client has pipeline mode (8.23+: it defines `pipeline` on every client). */
function supportsPipeline(Client: new (options: unknown) => PgClient): boolean {
  try {
    return 'pipeline' in new Client({});
  } catch {
    return false;
  }
}
