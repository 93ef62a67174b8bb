import { contentText } from '../../common/messages/content-parts.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type { ToolLoopOutcome } from '../kernel/loop/tool-loop.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { IndexedMessage } from '../longterm/recall/message-index.js';
import { words } from '../longterm/recall/search-text.js';
import type { LongtermSession } from '../longterm/session/longterm-session.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import type { ReplayCache } from './runs/replay-cache.js';
import type { TurnRecallSettings } from './turn-recall.js';

/** What indexing a run's turns uses of the runner's dependencies. */
interface IndexingDeps {
  longterm?: LongtermMemoryService;
  recall?: TurnRecallSettings;
  provider?: MemoryProvider;
  cache: ReplayCache;
}

/**
 * With `recall.messages`, the note that the run's entity may index messages of the conversation,
 * written as the run begins and awaited before its model call (a conversation deleted while the run
 * is in flight then fences them).
 */
export function noteConversation(
  deps: IndexingDeps,
  session: LongtermSession | undefined,
  conversationId: string,
): Promise<void> | undefined {
  const longterm = indexer(deps, session);
  if (!longterm || !session) return undefined;
  // Only the run's seq and time: the session itself holds the entity id and much more.
  const noted = longterm.noteConversation(session.entityId, conversationId, {
    seq: session.seq,
    updatedAt: session.updatedAt,
  });
  noted.catch(() => undefined);
  return noted;
}

/**
 * Indexes the committed turn's user and assistant text for the run's entity (`recall.messages`),
 * with the run's seq and time, vectors through the run cache: a retried run writes the same bytes,
 * which the seq guard makes a no-op.
 */
export async function indexTurn(
  deps: IndexingDeps,
  turn: {
    runId: string;
    session: LongtermSession | undefined;
    conversationId: string;
    outcome: ToolLoopOutcome;
    baseVersion: number;
  },
): Promise<void> {
  const { runId, session, conversationId, outcome, baseVersion } = turn;
  const longterm = indexer(deps, session);
  if (!longterm || !session) return;
  await longterm.indexMessages(
    session.entityId,
    indexedTurn(runId, conversationId, outcome.messages, baseVersion),
    { seq: session.seq, updatedAt: session.updatedAt },
    async (key, compute) => (await deps.cache.step(runId, key, compute)).value,
  );
}

/**
 * The long-term tier when the run indexes its turns: `recall.messages`, a session (an entity and
 * the tier on) and stored history (positions to name); else `undefined`.
 */
function indexer(
  deps: IndexingDeps,
  session: LongtermSession | undefined,
): LongtermMemoryService | undefined {
  return session && deps.recall?.messages && deps.provider ? deps.longterm : undefined;
}

/**
 * The messages of a committed turn that `recall.messages` indexes: its user and assistant messages
 * holding a word, at their positions (the turn starts right after `baseVersion`).
 */
function indexedTurn(
  runId: string,
  conversationId: string,
  messages: readonly ChatMessage[],
  baseVersion: number,
): IndexedMessage[] {
  return messages.flatMap((message, i) => {
    const text = contentText(message.content);
    return (message.role === 'user' || message.role === 'assistant') && words(text).length > 0
      ? [
          {
            conversationId,
            position: baseVersion + 1 + i,
            messageId: message.id ?? `${runId}:${i}`,
            role: message.role,
            text,
          },
        ]
      : [];
  });
}
