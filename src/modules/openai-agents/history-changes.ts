import type {
  AgentInputItem,
  SessionHistoryMutation,
  SessionHistoryTransactionArgs,
} from '@openai/agents';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { decodeValue, encodeValue } from './item-codec.js';
import { type EditRecord, type LiveItem, type LogFold, decodeItem } from './session-log.js';
import { SessionHistoryConflictError } from './session-history-conflict.error.js';

/**
 * The edit that applies the mutations to the live items, in order, as the SDK's own
 * `MemorySession` does: `replace_function_call` puts the replacement where the first
 * `function_call` with its call id is and removes the later ones. Refuses a mutation it does not
 * know rather than ignore it.
 */
export function applyMutations(
  live: readonly LiveItem[],
  mutations: readonly SessionHistoryMutation[],
): EditRecord {
  let working = live.map((entry) => ({ entry, item: decodeItem(entry), replaced: false }));
  mutations.forEach((mutation, index) => {
    if (mutation?.type !== 'replace_function_call' || typeof mutation.callId !== 'string')
      throw new InvalidArgumentError(
        `mutations[${index}]`,
        'must be a replace_function_call mutation with a callId',
      );
    let kept = false;
    working = working.filter((slot) => {
      const item = slot.item as { type?: string; callId?: string };
      if (item.type !== 'function_call' || item.callId !== mutation.callId) return true;
      if (kept) return false;
      kept = true;
      slot.item = decodeValue(encodeValue(mutation.replacement, 'replacement')) as AgentInputItem;
      slot.replaced = true;
      return true;
    });
  });
  const still = new Set(working.map((slot) => slot.entry));
  return {
    remove: live.filter((entry) => !still.has(entry)).map((entry) => entry.key),
    replace: working
      .filter((slot) => slot.replaced)
      .map((slot) => ({ ...slot.entry.key, item: encodeValue(slot.item, 'replacement') })),
  };
}

/** One step of a transaction's write: the marker, or an item to append. */
export type TransactionStep = { edit: EditRecord } | { item: AgentInputItem };

/**
 * What a history transaction writes to the log as it stands: nothing if the operation was applied
 * already with the same transaction; else its marker (naming the operation and the suffix it
 * replaces) followed by its items. Throws `SessionHistoryConflictError` for an operation id used
 * with another transaction, or a suffix that does not match.
 */
export function transactionPlan(
  sessionId: string,
  fold: LogFold,
  args: SessionHistoryTransactionArgs,
): TransactionStep[] {
  const { operationId, transaction } = checkArgs(args);
  const digest = createHash('sha256')
    .update(canonicalJson(encodeValue(transaction, 'transaction')))
    .digest('hex');
  const applied = fold.operations.get(operationId);
  if (applied === digest) return [];
  if (applied !== undefined)
    throw new SessionHistoryConflictError(
      sessionId,
      `operation "${operationId}" was already applied with a different transaction`,
    );
  const operation = { id: operationId, digest };
  if (transaction.type === 'append_items')
    return [{ edit: { operation } }, ...transaction.items.map((item) => ({ item }))];
  const live = fold.oldestFirst();
  const suffix = live.slice(live.length - transaction.expectedSuffix.length);
  const matches =
    transaction.expectedSuffix.length <= live.length &&
    suffix.every(
      (entry, index) =>
        canonicalJson(entry.encoded) ===
        canonicalJson(encodeValue(transaction.expectedSuffix[index], 'expectedSuffix')),
    );
  if (!matches)
    throw new SessionHistoryConflictError(
      sessionId,
      'the history no longer ends with the expected suffix',
    );
  return [
    { edit: { operation, remove: suffix.map((entry) => entry.key) } },
    ...transaction.replacement.map((item) => ({ item })),
  ];
}

function checkArgs(args: SessionHistoryTransactionArgs): SessionHistoryTransactionArgs {
  const { operationId, transaction } = args ?? {};
  if (typeof operationId !== 'string' || !operationId.trim())
    throw new InvalidArgumentError('operationId', 'must be a non-empty string');
  const arrays =
    transaction?.type === 'append_items'
      ? [transaction.items]
      : transaction?.type === 'replace_suffix'
        ? [transaction.expectedSuffix, transaction.replacement]
        : undefined;
  if (!arrays?.every(Array.isArray))
    throw new InvalidArgumentError(
      'transaction',
      'must be append_items with items, or replace_suffix with expectedSuffix and replacement',
    );
  return { operationId, transaction };
}
