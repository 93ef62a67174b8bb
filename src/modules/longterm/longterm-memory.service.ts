import { LONGTERM_BACKEND, LONGTERM_EMBEDDER, LONGTERM_OPTIONS } from './longterm.constants.js';
import {
  Logger,
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import type { SweepScheduler } from '../sweeper/interfaces/sweep-scheduler.interface.js';
import {
  DEFAULT_BACKFILL_BATCH,
  DEFAULT_SWEEP_BATCH,
  LongtermBackgroundTasks,
} from './longterm-background.js';
import { sweepInBatches } from '../sweeper/sweep-in-batches.js';
import { SWEEP_SCHEDULER } from '../sweeper/sweeper.constants.js';
import { LongtermMemoryDisabledError } from './errors/longterm.errors.js';
import type { LongtermMemoryStore } from './interfaces/longterm-store.interface.js';
import type { JsonValue, LongtermSaveInput } from './interfaces/longterm-store.interface.js';
import type { LongtermBackend, LongtermTier } from './longterm-backend.factory.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { LongtermSession } from './session/longterm-session.js';
import { throwAsLoneRecord } from './validation/lone-record-error.js';
import type { RecallHit, RecallOptions, RecordRecallHit } from './recall/recall.interface.js';
import {
  type IndexedMessage,
  assertIndexableEntity,
  assertIndexedMessages,
  derivedRecordText,
  formedEntityOf,
  isDerivedEntity,
} from './recall/message-index.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import {
  type MessageIndexDeps,
  eraseMessageIndex,
  forgetConversation,
  indexMessages,
  noteConversation,
} from './recall/message-index-writes.js';
import { type RecallContext, hybridRecall } from './recall/hybrid-recall.js';
import { type RecallRerank, recallRerankOf } from './recall/rerank/rerank-hits.js';
import { defaultRecordText } from './recall/search-text.js';
import { type CachedStep, cachedEmbedding } from './recall/embedding/embed-texts.js';
import { withVectors } from './recall/embedding/embed-records.js';
import type { EmbeddingModel } from './recall/embedding/embedding-model.interface.js';
import { EmbeddingBackfill, type EmbeddingStatus } from './recall/embedding/embedding-backfill.js';
import { analyzerFor } from './recall/text-analyzer.js';

/**
 * The long-term tier: the store, the per-entity seq counters, run sessions, and the sweep of expired
 * rows (task `longterm-expiry`, on `SweeperModule`'s scheduler or an in-process timer). When the
 * tier is off, every method throws `LongtermMemoryDisabledError` (`enabled` is false).
 */
@Injectable()
export class LongtermMemoryService
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('LongtermMemory');
  private readonly backfill?: EmbeddingBackfill;
  private readonly background: LongtermBackgroundTasks;
  private readonly textOf: (value: JsonValue, key: string) => string;
  private readonly recordTextOf: (value: JsonValue, key: string, entityId: string) => string;
  private readonly rerank?: RecallRerank;

  constructor(
    @Inject(LONGTERM_BACKEND) private readonly backend: LongtermBackend | undefined,
    @Inject(LONGTERM_OPTIONS) private readonly options: LongtermMemoryModuleOptions,
    @Optional() @Inject(SWEEP_SCHEDULER) scheduler?: SweepScheduler,
    @Optional() @Inject(LONGTERM_EMBEDDER) private readonly embedder?: EmbeddingModel,
  ) {
    this.textOf = options.recordText ?? ((value) => defaultRecordText(value));
    this.recordTextOf = (value, key, entityId) =>
      isDerivedEntity(entityId) ? derivedRecordText(value) : this.textOf(value, key);
    this.rerank = recallRerankOf(options.recall?.rerank, this.recordTextOf);
    if (backend && embedder)
      this.backfill = new EmbeddingBackfill(backend.value.store, embedder, this.recordTextOf);
    const sweep = (batch: number) => this.sweep(batch);
    this.background = new LongtermBackgroundTasks(options, sweep, this.backfill, scheduler);
  }

  /** Whether the tier is on (a URI was configured). */
  get enabled(): boolean {
    return this.backend !== undefined;
  }

  /** The lists `recall` reads: by words (unless `textSearch: false`), by meaning (an embedder). */
  get recallLists(): { words: boolean; meaning: boolean } {
    return { words: this.options.textSearch !== false, meaning: this.embedder !== undefined };
  }

  /** The store (throws when the tier is off). */
  get store(): LongtermMemoryStore {
    return this.require().store;
  }

  /** The next value of the entity's durable counter: a run's `seq`, taken when the run is created. */
  async nextSeq(entityId: string): Promise<number> {
    return this.require().counter.next(entityId);
  }

  /**
   * A run's staging session: saves are staged and written by `flush()` with the run's seq and time;
   * with an embedder, its vectors go through `cachedStep` (a retried run replays them, unpaid).
   */
  session(
    entityId: string,
    run: { seq: number; updatedAt: number },
    cachedStep?: CachedStep,
  ): LongtermSession {
    const { embedder } = this;
    return new LongtermSession(
      this.require().store,
      entityId,
      run.seq,
      run.updatedAt,
      this.options.maxValueBytes,
      embedder && {
        model: embedder.id,
        textOf: this.textOf,
        embed: cachedEmbedding(embedder, cachedStep),
      },
      (query, options) => this.recall(entityId, query, { ...options, scope: 'records' }),
      this.textOf,
      analyzerFor(this.options.textSearch),
    );
  }

  /**
   * `store.saveMany`, with each record's vector made by the configured embedder first (records that
   * bring their own `embedding` keep it). If the embedder fails, the records are saved without
   * vectors — their words are searchable at once — and the background embedding adds them later.
   */
  async saveMany(records: LongtermSaveInput[]): Promise<{ applied: boolean[] }> {
    const { store } = this.require();
    const { embedder } = this;
    if (!embedder || !Array.isArray(records)) return store.saveMany(records);
    return store.saveMany(await withVectors(records, embedder, this.recordTextOf, this.logger));
  }

  /** One record through {@link saveMany}. */
  async save(record: LongtermSaveInput): Promise<{ applied: boolean }> {
    const { applied } = await this.saveMany([record]).catch(throwAsLoneRecord);
    return { applied: applied[0]! };
  }

  /** The embedding model recall's vector list uses, if one is configured. */
  get embeddingModel(): EmbeddingModel | undefined {
    return this.embedder;
  }

  /** Where the background embedding stands (`undefined` without an embedder or tier). */
  embeddingStatus(): EmbeddingStatus | undefined {
    return this.backfill?.status();
  }

  /** Runs one background-embedding pass now; resolves how many records it gave a vector. */
  async embedPending(batchSize = DEFAULT_BACKFILL_BATCH): Promise<number> {
    this.require();
    return this.backfill ? this.backfill.pass(batchSize) : 0;
  }

  /**
   * What best matches `query` for the entity, best first: its records (default scope), the messages
   * it took part in (`scope: 'messages'`, indexed by an agent with `recall.messages`), or both
   * (`'all'`, merged by fused score). Each source runs the backend's full-text search (BM25 or its
   * equivalent) and, with an embedder, the vector list (cosine similarity of the query's vector, at
   * least `recall.minSimilarity`), fused by reciprocal rank fusion; each hit says which list found it.
   */
  recall(
    entityId: string,
    query: string,
    options?: RecallOptions & { scope?: 'records' },
  ): Promise<RecordRecallHit[]>;
  recall(entityId: string, query: string, options: RecallOptions): Promise<RecallHit[]>;
  async recall(entityId: string, query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    assertIndexableEntity(entityId);
    return hybridRecall(this.recallContext(), entityId, query, options);
  }

  /**
   * Recall over the memories formed for the entity (the text of their active versions), with the
   * lists and fusion of `recall` over its records.
   */
  async recallFormed(
    entityId: string,
    query: string,
    options: Omit<RecallOptions, 'scope'> = {},
  ): Promise<RecordRecallHit[]> {
    assertIndexableEntity(entityId);
    const scoped = { ...options, scope: 'records' as const };
    const formed = formedEntityOf(entityId);
    return (await hybridRecall(this.recallContext(), formed, query, scoped)) as RecordRecallHit[];
  }

  private recallContext(): RecallContext {
    const { store } = this.require();
    const { minSimilarity } = this.options.recall ?? {};
    const textSearch = this.options.textSearch !== false;
    return { store, embedder: this.embedder, minSimilarity, rerank: this.rerank, textSearch };
  }

  /**
   * Indexes messages of a committed turn so `recall` finds them for the entity (what an agent with
   * `recall.messages` does after each commit), written with the run's `seq` and time: a retried
   * run's second write is a no-op, an erasure refuses a run begun before it. Vectors go through
   * `cachedStep` when given, as a session's do. Resolves how many messages were written.
   */
  async indexMessages(
    entityId: string,
    messages: readonly IndexedMessage[],
    run: { seq: number; updatedAt: number },
    cachedStep?: CachedStep,
  ): Promise<number> {
    assertIndexableEntity(entityId);
    assertIndexedMessages(messages);
    return indexMessages(this.messageIndex(cachedStep), entityId, messages, run);
  }

  /**
   * Removes a conversation's messages from the recall index of every entity that took part in it
   * (a conversation delete); resolves how many went.
   */
  async forgetConversation(conversationId: string): Promise<number> {
    assertConversationId(conversationId);
    return forgetConversation(this.messageIndex(), conversationId);
  }

  /**
   * Erases an entity: its message index (and its entries in the conversations' directories), then
   * `store.deleteEntity` of its formed memories and of its records (each with its erasure mark),
   * all marked above every run and formation job it had begun.
   */
  async deleteEntity(entityId: string): Promise<void> {
    assertIndexableEntity(entityId);
    // The index's fence first: every run begun before it is refused in both.
    const fence = await this.nextSeq(entityId);
    await eraseMessageIndex(this.messageIndex(), entityId, fence);
    const { store } = this.require();
    await store.deleteEntity(formedEntityOf(entityId));
    await store.deleteEntity(entityId);
  }

  /**
   * Records that the entity may index messages of the conversation, at a run's seq (an agent with
   * `recall.messages` does it as a run begins): a conversation deleted while the run is in flight
   * then removes what the run indexes afterwards.
   */
  async noteConversation(
    entityId: string,
    conversationId: string,
    run: { seq: number; updatedAt: number },
  ): Promise<void> {
    assertIndexableEntity(entityId);
    assertConversationId(conversationId);
    await noteConversation(this.messageIndex(), entityId, conversationId, run);
  }

  /** Removes expired rows in bounded batches until none are left; returns how many went. */
  async sweep(
    batchSize = (this.options.sweep || undefined)?.batchSize ?? DEFAULT_SWEEP_BATCH,
  ): Promise<number> {
    const { store } = this.require();
    return sweepInBatches((limit) => store.sweepExpired(limit), batchSize);
  }

  /** Starts the expiry sweep and, with an embedder, the background embedding. */
  async onModuleInit(): Promise<void> {
    if (this.backend) await this.background.start();
  }

  /** Stops the background work before any connection closes (the app's own DataSource included). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.background.stop();
  }

  /** Stops the background work if it still runs, then releases the tier's connections. */
  async onApplicationShutdown(): Promise<void> {
    await this.background.stop();
    await this.backend?.release();
  }

  private messageIndex(cachedStep?: CachedStep): MessageIndexDeps {
    const { embedder } = this;
    return {
      store: this.require().store,
      nextSeq: (entityId) => this.nextSeq(entityId),
      ...(embedder && {
        embedder: { model: embedder.id, embed: cachedEmbedding(embedder, cachedStep) },
      }),
    };
  }

  private require(): LongtermTier {
    if (!this.backend) throw new LongtermMemoryDisabledError();
    return this.backend.value;
  }
}
