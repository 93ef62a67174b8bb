import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { assertKnownOptionKeys } from '../../common/options/known-option-keys.js';
import type { LongtermRecord } from '../longterm/interfaces/longterm-store.interface.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { STORE_OPTION_KEYS } from './store-option-keys.js';
import { NamespaceKeys } from './namespace-keys.js';
import { matchesFilter } from './store-filter.js';

/** Options of {@link AgentMemoryStore}. */
export interface AgentMemoryStoreOptions {
  /**
   * How many leading namespace parts name the long-term entity (default 0: every item belongs to
   * `entityId`). With 1, `["user-42", "memories"]` is stored under the entity `user-42`, so
   * `LongtermMemoryService.deleteEntity('user-42')` erases that person's items; a call whose
   * namespace (prefix) is shorter is refused, since one call never spans entities.
   */
  entityParts?: number;
  /** The entity of every item when `entityParts` is 0 (default `langgraph`). */
  entityId?: string;
}

/** Most hits a search with a query can page through (recall's largest `k`). */
const MAX_QUERY_HITS = 100;

/** Records read per round trip while a search or `listNamespaces` pages through an entity. */
const PAGE = 200;

/** What an item's record holds: the value and when the item was first put (epoch ms). */
interface StoredItem {
  value: Record<string, unknown>;
  createdAt: number;
}

/**
 * A LangGraph store (`BaseStore`) on the package's long-term memory: every item is a long-term
 * record, so it is seq-guarded, erasable with its entity, searchable by its words (and meaning,
 * with an embedder) and visible in the memory inspector. Namespaces map to entity + key prefix
 * (see {@link AgentMemoryStoreOptions.entityParts}). `search` with a `query` runs the package's
 * hybrid recall (the `index` argument of `put` is not used: what is indexed is the long-term
 * module's `recordText`); without one, items come in key order. Filters are applied as records
 * are read, as are `listNamespaces`' conditions (it reads the entity's records).
 */
export class AgentMemoryStore extends BaseStore {
  private readonly keys: NamespaceKeys;

  constructor(
    private readonly longterm: LongtermMemoryService,
    options: AgentMemoryStoreOptions = {},
  ) {
    super();
    assertKnownOptionKeys('AgentMemoryStore', options, STORE_OPTION_KEYS);
    const entityParts = options.entityParts ?? 0;
    if (!Number.isInteger(entityParts) || entityParts < 0)
      throw new InvalidArgumentError('entityParts', 'must be a non-negative integer');
    this.keys = new NamespaceKeys(entityParts, options.entityId ?? 'langgraph');
  }

  /**
   * Runs each operation in order and resolves with their results. Every operation is checked
   * first: a bad one fails the batch before any of it runs.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    for (const operation of operations) this.check(operation);
    const results: unknown[] = [];
    for (const operation of operations) results.push(await this.run(operation));
    return results as OperationResults<Op>;
  }

  /** Validates an operation's namespace, key, value and sizes, without I/O. */
  private check(operation: Operation): void {
    if ('namespacePrefix' in operation) {
      this.keys.prefixOf(operation.namespacePrefix);
      const { limit = 10, offset = 0 } = operation;
      if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0)
        throw new InvalidArgumentError(
          'limit and offset',
          'must be integers, limit ≥ 1, offset ≥ 0',
        );
      if (operation.query && offset + limit > MAX_QUERY_HITS)
        throw new InvalidArgumentError(
          'offset + limit',
          `must be at most ${MAX_QUERY_HITS} with a query (recall ranks at most ${MAX_QUERY_HITS} hits)`,
        );
    } else if ('namespace' in operation) {
      this.keys.recordOf(operation.namespace, operation.key);
      if (
        'value' in operation &&
        operation.value !== null &&
        (typeof operation.value !== 'object' || Array.isArray(operation.value))
      )
        throw new InvalidArgumentError('value', 'must be an object, or null to delete');
    }
  }

  private run(operation: Operation): Promise<unknown> {
    if ('namespacePrefix' in operation) return this.searchItems(operation);
    if ('matchConditions' in operation || !('namespace' in operation))
      return this.namespaces(operation as ListNamespacesOperation);
    if ('value' in operation) return this.putItem(operation);
    return this.getItem(operation);
  }

  private async getItem({ namespace, key }: GetOperation): Promise<Item | null> {
    const place = this.keys.recordOf(namespace, key);
    const record = await this.longterm.store.load(place.entityId, place.key);
    return (record && this.itemOf(record)) ?? null;
  }

  private async putItem({ namespace, key, value }: PutOperation): Promise<void> {
    const place = this.keys.recordOf(namespace, key);
    const seq = await this.longterm.nextSeq(place.entityId);
    if (value === null) {
      await this.longterm.store.delete(place.entityId, place.key, seq);
      return;
    }
    const now = Date.now();
    const existing = await this.longterm.store.load(place.entityId, place.key);
    const createdAt = existing ? (existing.value as unknown as StoredItem).createdAt : now;
    await this.longterm.save({ ...place, value: { value, createdAt }, seq, updatedAt: now });
  }

  private async searchItems(operation: SearchOperation): Promise<SearchItem[]> {
    const { entityId, prefix } = this.keys.prefixOf(operation.namespacePrefix);
    const limit = operation.limit ?? 10;
    const offset = operation.offset ?? 0;
    const wanted = offset + limit;
    const found: SearchItem[] = [];
    if (operation.query !== undefined && operation.query !== '') {
      const hits = await this.longterm.recall(entityId, operation.query, {
        k: Math.min(MAX_QUERY_HITS, wanted * (operation.filter ? 4 : 1)),
        filter: { prefix },
      });
      for (const hit of hits) {
        const item = this.itemOf(hit.record);
        if (item && (!operation.filter || matchesFilter(item.value, operation.filter)))
          found.push({ ...item, score: hit.score });
      }
      return found.slice(offset, wanted);
    }
    for await (const record of this.records(entityId, prefix)) {
      const item = this.itemOf(record);
      if (item && (!operation.filter || matchesFilter(item.value, operation.filter)))
        found.push(item);
      if (found.length >= wanted) break;
    }
    return found.slice(offset, wanted);
  }

  private async namespaces(operation: ListNamespacesOperation): Promise<string[][]> {
    const conditions = operation.matchConditions ?? [];
    const prefixCondition = conditions.find((condition) => condition.matchType === 'prefix');
    const literal = prefixCondition ? literalHead(prefixCondition.path) : [];
    const { entityId, prefix } = this.keys.prefixOf(literal);
    const seen = new Map<string, string[]>();
    for await (const record of this.records(entityId, prefix)) {
      const item = this.keys.itemOf(record.entityId, record.key);
      if (!item) continue;
      const namespace =
        operation.maxDepth === undefined
          ? item.namespace
          : item.namespace.slice(0, operation.maxDepth);
      if (conditions.every((condition) => matchesCondition(item.namespace, condition)))
        seen.set(JSON.stringify(namespace), namespace);
    }
    return [...seen.values()]
      .sort((a, b) => (a.join(':') < b.join(':') ? -1 : a.join(':') > b.join(':') ? 1 : 0))
      .slice(operation.offset ?? 0, (operation.offset ?? 0) + (operation.limit ?? 100));
  }

  /** The entity's live records under a key prefix, in key order, a page at a time. */
  private async *records(entityId: string, prefix: string): AsyncGenerator<LongtermRecord> {
    let after: string | undefined;
    for (;;) {
      const page = await this.longterm.store.search(entityId, prefix, PAGE, after);
      yield* page;
      if (page.length < PAGE) return;
      after = page.at(-1)!.key;
    }
  }

  private itemOf(record: LongtermRecord): Item | undefined {
    const place = this.keys.itemOf(record.entityId, record.key);
    const stored = record.value as unknown as StoredItem | null;
    if (!place || typeof stored !== 'object' || stored === null || typeof stored.value !== 'object')
      return undefined;
    return {
      namespace: place.namespace,
      key: place.key,
      value: stored.value,
      createdAt: new Date(stored.createdAt),
      updatedAt: new Date(record.updatedAt),
    };
  }
}

/** The parts of a condition's path before its first wildcard. */
function literalHead(path: readonly string[]): string[] {
  const wildcard = path.indexOf('*');
  return [...(wildcard < 0 ? path : path.slice(0, wildcard))];
}

function matchesCondition(
  namespace: readonly string[],
  { matchType, path }: MatchCondition,
): boolean {
  if (path.length > namespace.length) return false;
  const parts =
    matchType === 'prefix' ? namespace.slice(0, path.length) : namespace.slice(-path.length);
  return path.every((part, index) => part === '*' || part === parts[index]);
}
