import { Logger } from '@nestjs/common';
import type {
  JsonValue,
  LongtermMemoryStore,
  UnembeddedRecord,
} from '../../interfaces/longterm-store.interface.js';
import { embedTexts } from './embed-texts.js';
import type { EmbeddingModel } from './embedding-model.interface.js';

/** Where the background embedding stands (`LongtermMemoryService.embeddingStatus()`). */
export interface EmbeddingStatus {
  /** The current model's id: only its vectors are searched. */
  model: string;
  /** Whether a pass is running now. */
  running: boolean;
  /** Records given a vector since the process started (backfill only, not flushes). */
  embedded: number;
  /** When the last pass ended (epoch ms), and what it did. */
  lastPass?: { endedAt: number; embedded: number; complete: boolean };
  /** The last pass's failure, if it failed. */
  lastError?: string;
}

/** Most pages one pass reads (each of `batch` records), so a pass always ends. */
const MAX_PAGES_PER_PASS = 10_000;

/**
 * Gives a vector of the current model to every live record without one: records saved without a
 * vector (outside a run, or while the model was down) and those of an earlier model, which recall
 * ignores meanwhile. Page by page (`unembedded`), embedded in batches, stored only while each record
 * keeps the seq it was read at (`setEmbeddings`), so a newer write is never overwritten.
 */
export class EmbeddingBackfill {
  private readonly logger = new Logger('EmbeddingBackfill');
  private state: EmbeddingStatus;
  private stopped = false;

  constructor(
    private readonly store: LongtermMemoryStore,
    private readonly model: EmbeddingModel,
    private readonly textOf: (value: JsonValue, key: string, entityId: string) => string,
  ) {
    this.state = { model: model.id, running: false, embedded: 0 };
  }

  /** A copy of where it stands. */
  status(): EmbeddingStatus {
    return structuredClone(this.state);
  }

  /** Stops the pass in progress at its next page, and refuses new ones (shutdown). */
  stop(): void {
    this.stopped = true;
  }

  /** One pass over every record without a vector of the model; resolves how many it embedded. */
  async pass(batch: number): Promise<number> {
    if (this.state.running || this.stopped) return 0;
    this.state.running = true;
    let embedded = 0;
    let cursor: string | undefined;
    let complete = false;
    try {
      for (let page = 0; page < MAX_PAGES_PER_PASS && !this.stopped; page += 1) {
        const { records, cursor: next } = await this.store.unembedded(this.model.id, batch, cursor);
        if (records.length > 0) {
          const stored = await this.embedPage(records);
          embedded += stored;
          this.state.embedded += stored;
        }
        cursor = next;
        if (cursor === undefined) {
          complete = true;
          break;
        }
      }
      delete this.state.lastError;
    } catch (error) {
      this.state.lastError = (error as Error).message;
      this.logger.warn(
        `Background embedding with ${this.model.id} stopped: ${(error as Error).message}`,
      );
    } finally {
      this.state.running = false;
      this.state.lastPass = { endedAt: Date.now(), embedded, complete };
    }
    if (embedded > 0) this.logger.log(`Embedded ${embedded} record(s) with ${this.model.id}`);
    return embedded;
  }

  /**
   * Embeds and stores one page. When the batch fails, each record is tried alone: if none succeeds
   * the model is down (the pass stops, to try again next time); records that fail alone (a text the
   * model refuses, a `recordText` that throws) get an empty vector — skipped until their value
   * changes — and are logged, so one bad record never blocks the others.
   */
  private async embedPage(records: UnembeddedRecord[]): Promise<number> {
    let vectors: Array<number[] | undefined>;
    try {
      vectors = await embedTexts(
        this.model,
        records.map((record) => this.textOf(record.value, record.key, record.entityId)),
      );
    } catch (batchError) {
      vectors = [];
      for (const record of records) {
        try {
          const [vector] = await embedTexts(this.model, [
            this.textOf(record.value, record.key, record.entityId),
          ]);
          vectors.push(vector);
        } catch {
          vectors.push(undefined);
        }
      }
      if (vectors.every((vector) => vector === undefined)) throw batchError;
      const skipped = records.filter((_, i) => vectors[i] === undefined).map((r) => r.key);
      this.logger.warn(
        `Background embedding with ${this.model.id}: ${skipped.length} record(s) could not be embedded and are skipped until they change: ${skipped.slice(0, 10).join(', ')}`,
      );
    }
    const { applied } = await this.store.setEmbeddings(
      records.map((record, i) => ({
        entityId: record.entityId,
        key: record.key,
        seq: record.seq,
        value: record.value,
        model: this.model.id,
        vector: vectors[i] ?? [],
      })),
    );
    return applied.filter(Boolean).length;
  }
}
