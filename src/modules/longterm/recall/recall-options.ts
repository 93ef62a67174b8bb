import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { MAX_TEXT_SEARCH_LIMIT } from '../interfaces/longterm-store.interface.js';
import { assertConversationId } from '../../../common/messages/message-validation.js';
import type { RecallFilter, RecallMode, RecallOptions, RecallScope } from './recall.interface.js';
import { DEFAULT_NEIGHBOUR_WEIGHT } from './neighbour-rerank.js';

/** Default number of hits of a recall. */
export const DEFAULT_RECALL_K = 10;

const OPTION_KEYS = new Set(['k', 'filter', 'mode', 'scope', 'neighbours', 'rerank']);
const FILTER_KEYS = new Set(['prefix', 'updatedFrom', 'updatedTo', 'conversationId']);

/** A recall's `k` and filter, checked (each filter value is checked by the search itself). */
export function recallOptions(options: RecallOptions): {
  k: number;
  filter: RecallFilter;
  mode: RecallMode;
  /** Which sources the recall reads, after its scope and filters. */
  sources: { records: boolean; messages: boolean };
  /** The message list's neighbour weight. */
  neighbours: number;
  /** Whether a configured rerank runs. */
  rerank: boolean;
} {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'must be an object');
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key))
      throw new InvalidArgumentError(
        key,
        'is not a recall option (k, filter, mode, scope, neighbours, rerank)',
      );
  const {
    k = DEFAULT_RECALL_K,
    filter = {},
    mode = 'hybrid',
    scope = 'records',
    neighbours = DEFAULT_NEIGHBOUR_WEIGHT,
    rerank = true,
  } = options;
  if (typeof rerank !== 'boolean')
    throw new InvalidArgumentError('rerank', `must be a boolean, got ${typeof rerank}`);
  if (typeof neighbours !== 'number' || !(neighbours >= 0 && neighbours <= 1))
    throw new InvalidArgumentError(
      'neighbours',
      `must be a number from 0 to 1, got ${String(neighbours)}`,
    );
  if (!['hybrid', 'lexical', 'vector'].includes(mode))
    throw new InvalidArgumentError(
      'mode',
      `must be hybrid, lexical or vector, got ${String(mode)}`,
    );
  if (!Number.isInteger(k) || k < 1 || k > MAX_TEXT_SEARCH_LIMIT)
    throw new InvalidArgumentError(
      'k',
      `must be an integer from 1 to ${MAX_TEXT_SEARCH_LIMIT}, got ${String(k)}`,
    );
  if (typeof filter !== 'object' || filter === null)
    throw new InvalidArgumentError('filter', 'must be an object');
  for (const key of Object.keys(filter))
    if (!FILTER_KEYS.has(key))
      throw new InvalidArgumentError(
        `filter.${key}`,
        'is not a filter (prefix, updatedFrom, updatedTo, conversationId)',
      );
  return { k, filter, mode, sources: recallSources(scope, filter), neighbours, rerank };
}

/** The sources a scope reads: a key prefix narrows to records, a conversation to messages. */
function recallSources(
  scope: RecallScope,
  filter: RecallFilter,
): { records: boolean; messages: boolean } {
  if (!['records', 'messages', 'all'].includes(scope))
    throw new InvalidArgumentError(
      'scope',
      `must be records, messages or all, got ${String(scope)}`,
    );
  if (filter.conversationId !== undefined)
    assertConversationId(filter.conversationId, 'filter.conversationId');
  const byKey = filter.prefix !== undefined;
  const byConversation = filter.conversationId !== undefined;
  if (byKey && byConversation)
    throw new InvalidArgumentError(
      'filter',
      'prefix (records) and conversationId (messages) cannot both be given',
    );
  if (scope === 'records' && byConversation)
    throw new InvalidArgumentError(
      'filter.conversationId',
      'narrows messages: use scope messages or all',
    );
  if (scope === 'messages' && byKey)
    throw new InvalidArgumentError('filter.prefix', 'narrows records: use scope records or all');
  return {
    records: scope !== 'messages' && !byConversation,
    messages: scope !== 'records' && !byKey,
  };
}
