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

/** What the lanes need of a `pg-pool` pool: its client class and the options it opens them with. */
export interface PgPoolLike {
  readonly Client?: new (options: unknown) => PgClient;
  readonly options?: { idleTimeoutMillis?: number; max?: number };
  readonly ending?: boolean;
  query(config: PgQueryConfig): Promise<{ rows: unknown[] }>;
  end(...args: unknown[]): unknown;
  emit?(event: string, ...args: unknown[]): boolean;
}

/**
 * Pipelined connections per pool (fewer where the pool itself is smaller): two kept both cores of
 * the benchmark machine busy; one and four did less.
 */
export const PIPELINE_LANES = 2;

interface Lane {
  readonly client: PgClient;
  /** Settles once the connection is open and the pool's `connect` listeners have run. */
  readonly ready: Promise<void>;
  pending: number;
  idleSince: number;
  closed: boolean;
}

/**
 * The package's own PostgreSQL statements over a few pipelined connections (`pg`'s pipeline mode,
 * pg 8.23 or later) opened beside the pool with its options: a statement is written at once on
 * the lane with the fewest statements outstanding, without waiting for a pool connection or for
 * the lane's earlier answers; the server runs each lane's statements in order, each its own
 * transaction, and one that fails fails alone. Only single, self-contained statements may go here
 * (nothing that relies on a session or a transaction spanning calls), which is all the hot paths
 * send. Lanes open when needed (one while statements come one at a time), close after the pool's
 * idle timeout, are replaced when a connection fails (the statements in flight on it fail, as on a
 * pooled connection), and end when the pool ends.
 */
export class PgPipelineLanes {
  private readonly lanes: Lane[] = [];
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;

  private constructor(
    private readonly pool: PgPoolLike,
    private readonly Client: new (options: unknown) => PgClient,
    private readonly size: number,
  ) {
    const end = pool.end.bind(pool);
    // The pool's end (TypeORM's `destroy`) ends the lanes too: no connection outlives its pool.
    (pool as { end: PgPoolLike['end'] }).end = (...args: unknown[]) => {
      this.close();
      return end(...args);
    };
  }

  /** The lanes of `pool` (made once per pool), or undefined where `pg` cannot pipeline. */
  static of(pool: PgPoolLike, size = PIPELINE_LANES): PgPipelineLanes | undefined {
    const known = LANES.get(pool);
    if (known !== undefined || LANES.has(pool)) return known;
    const Client = pool.Client;
    const lanes =
      Client !== undefined && typeof Client.prototype === 'object' && supportsPipeline(Client)
        ? new PgPipelineLanes(pool, Client, Math.max(1, Math.min(size, pool.options?.max ?? size)))
        : undefined;
    LANES.set(pool, lanes);
    return lanes;
  }

  /** Runs one statement on a lane (on the pool itself once the pool is ending). */
  async query(config: PgQueryConfig): Promise<{ rows: unknown[] }> {
    if (this.closed || this.pool.ending) return this.pool.query(config);
    const lane = this.pick();
    lane.pending += 1;
    try {
      await lane.ready;
      return await lane.client.query(config);
    } finally {
      lane.pending -= 1;
      if (lane.pending === 0) {
        lane.idleSince = Date.now();
        if (this.closed) this.drop(lane);
      }
    }
  }

  /** Ends every lane once its statements in flight have settled; later statements go to the pool. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const lane of [...this.lanes]) if (lane.pending === 0) this.drop(lane);
  }

  /** An idle lane, else a new one while fewer than `size` are open, else the least busy. */
  private pick(): Lane {
    let best: Lane | undefined;
    for (const lane of this.lanes) {
      if (lane.pending === 0) return lane;
      if (best === undefined || lane.pending < best.pending) best = lane;
    }
    return best !== undefined && this.lanes.length >= this.size ? best : this.open();
  }

  private open(): Lane {
    const client = new this.Client(this.pool.options);
    client.pipeline = true;
    const lane: Lane = {
      client,
      ready: client.connect().then(() => {
        this.pool.emit?.('connect', client);
      }),
      pending: 0,
      idleSince: Date.now(),
      closed: false,
    };
    // A failed connection's statements fail with its error; the lane is replaced on next use.
    lane.ready.catch(() => this.drop(lane));
    client.on('error', () => this.drop(lane));
    client.on('end', () => this.drop(lane));
    this.lanes.push(lane);
    this.sweepIdle();
    return lane;
  }

  /** Forgets a lane and ends its connection (once). */
  private drop(lane: Lane): void {
    if (lane.closed) return;
    lane.closed = true;
    this.lanes.splice(this.lanes.indexOf(lane), 1);
    lane.client.end().catch(() => undefined);
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
          if (lane.pending === 0 && now - lane.idleSince >= idleMs) this.drop(lane);
      },
      Math.max(10, idleMs / 2),
    );
    this.sweeper.unref();
  }
}

/** Lanes per pool; undefined where the pool's `pg` has no pipeline mode. */
const LANES = new WeakMap<PgPoolLike, PgPipelineLanes | undefined>();

/** True where `pg`'s Client has pipeline mode (8.23+: it defines `pipeline` on every client). */
function supportsPipeline(Client: new (options: unknown) => PgClient): boolean {
  try {
    return 'pipeline' in new Client({});
  } catch {
    return false;
  }
}
