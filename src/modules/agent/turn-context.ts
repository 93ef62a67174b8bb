import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
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
