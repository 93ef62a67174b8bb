import type {
  ChatMessage,
  StoredChatMessage,
} from '../../common/messages/chat-message.interface.js';
import type { ToolContext } from '../kernel/interfaces/kernel-tool.interface.js';
import type { HistoryStrategy } from '../kernel/loop/history-strategy.js';
import {
  LongtermMemoryDisabledError,
  LongtermNoEntityError,
} from '../longterm/errors/longterm.errors.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { LongtermSession } from '../longterm/session/longterm-session.js';
import { UnavailableLongtermRunView } from '../longterm/session/unavailable-run-view.js';
import type {
  MemoryProvider,
  PrepareOptions,
} from '../memory-provider/interfaces/memory-provider.interface.js';
import type { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import type { ReplayCache } from './runs/replay-cache.js';

/**
 * The history a scope of a run sees: everything before its base version (taken, once per scope,
 * from the version current when the scope began). A bounded provider's `recentHistory` reads only
 * the part its policy can send.
 */
export async function historyAtBase(
  provider: MemoryProvider | undefined,
  conversationId: string,
  baseVersionOf: (current: number) => Promise<number>,
): Promise<{ history: StoredChatMessage[]; baseVersion: number }> {
  if (!provider) return { history: [], baseVersion: await baseVersionOf(0) };
  if (!provider.recentHistory) {
    const { messages, version } = await provider.history(conversationId);
    const baseVersion = await baseVersionOf(version);
    return { history: messages.slice(0, baseVersion), baseVersion };
  }
  let recent = await provider.recentHistory(conversationId);
  const baseVersion = await baseVersionOf(recent.version);
  // A retried scope began at an older version: read the part that ends there.
  if (baseVersion !== recent.version)
    recent = await provider.recentHistory(conversationId, baseVersion);
  return { history: recent.messages, baseVersion };
}

/** The provider as the loop's history: `prepare(history + turn)` before each model call. */
export function providerHistory(
  provider: MemoryProvider,
  conversationId: string,
  history: ChatMessage[],
  options: PrepareOptions,
): HistoryStrategy {
  return {
    messagesFor: (turn) => provider.prepare(conversationId, [...history, ...turn], options),
  };
}

/**
 * What a tool of a run gets of the memory tiers: its step's long-term view (or a stand-in that
 * says why there is none), and the conversation's working memory, whose summaries go to the run
 * cache so a replay on any worker folds the same way.
 */
export function toolTiers(
  deps: {
    cache: ReplayCache;
    longterm?: LongtermMemoryService;
    workingMemory?: WorkingMemoryService;
  },
  runId: string,
  conversationId: string,
  view: ReturnType<LongtermSession['forStep']> | undefined,
): Pick<ToolContext, 'longterm' | 'workingMemory'> {
  const { workingMemory, cache, longterm } = deps;
  return {
    longterm:
      view ??
      new UnavailableLongtermRunView(() =>
        longterm?.enabled
          ? new LongtermNoEntityError()
          : new LongtermMemoryDisabledError('Long-term memory (context.longterm)'),
      ),
    ...(workingMemory
      ? {
          workingMemory: workingMemory.for(conversationId, {
            summaries: async (key, compute) =>
              (await cache.step(runId, `working-memory-summary:${key}`, compute)).value,
          }),
        }
      : {}),
  };
}
