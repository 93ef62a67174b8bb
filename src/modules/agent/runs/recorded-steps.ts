import { contentText } from '../../../common/messages/content-parts.js';
import type { KernelToolResult } from '../../kernel/interfaces/kernel-filter.interface.js';
import type { StepReplay } from '../../kernel/loop/loop-request.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';
import type { LongtermSession, StagedRow } from '../../longterm/session/longterm-session.js';
import type { AgentEventBase, AgentEvents } from '../interfaces/agent-events.interface.js';
import type { AgentStreamEvent } from '../interfaces/agent-run.interface.js';
import type { ReplayCache } from './replay-cache.js';

/** A tool step as the run cache records it: the result, and the long-term rows the step staged. */
interface RecordedToolStep extends KernelToolResult {
  staged?: StagedRow[];
}

/** What one attempt of a run records its steps with. */
export interface RecordedStepsScope {
  cache: ReplayCache;
  runId: string;
  /** The attempt scope (a conflict retry is a new scope, with fresh model calls). */
  scope: number;
  /** Named in the agent's events. */
  events: AgentEventBase;
  /** The streaming caller, if any: a replayed answer is handed over as one token. */
  onEvent?: (event: AgentStreamEvent) => void;
  /** The run's long-term session and each tool step's view of it (by `round:index`). */
  session?: LongtermSession;
  views: Map<string, ReturnType<LongtermSession['forStep']>>;
  /** Reports an agent event (never throws). */
  emit<K extends keyof AgentEvents>(
    name: K,
    event: Parameters<NonNullable<AgentEvents[K]>>[0],
  ): void;
}

/**
 * The run cache as the loop's step replay: each model response under (scope, round) and each tool
 * step under (scope, round, position of the call in the round) — call ids repeat across rounds — is
 * computed once and served from the cache on later attempts, with the long-term rows the tool step
 * staged, which a replay stages again.
 */
export class RecordedSteps implements StepReplay {
  constructor(private readonly run: RecordedStepsScope) {}

  async model(round: number, compute: () => Promise<LlmResponse>): Promise<LlmResponse> {
    const { cache, runId, scope, events, onEvent, emit } = this.run;
    emit('onLlmCall', { ...events, round });
    const key = `llm:${scope}:${round}`;
    const { value, hit } = await cache.step<LlmResponse>(runId, key, compute);
    if (hit) await cache.markReplayed(runId, key);
    // A replayed answer was streamed on an earlier attempt: hand its text over in one piece.
    const text = contentText(value.message.content);
    if (hit && onEvent && text) onEvent({ type: 'token', text });
    emit('onLlmResult', { ...events, round, response: value, replayed: hit });
    return value;
  }

  async tool(
    round: number,
    index: number,
    _call: unknown,
    compute: () => Promise<KernelToolResult>,
  ): Promise<KernelToolResult> {
    const { cache, runId, scope, session, views } = this.run;
    const key = `tool:${scope}:${round}:${index}`;
    // A tool step is read first even in a run's first attempt: were another attempt of the run
    // running at the same time, its recorded call must not run again here.
    const steps = cache.readingFirst();
    const { value, hit } = await steps.step<RecordedToolStep>(runId, key, async () => ({
      ...(await compute()),
      staged: views.get(`${round}:${index}`)?.stagedByStep() ?? [],
    }));
    // A replayed step stages again exactly the rows it staged the first time.
    if (hit) await steps.markReplayed(runId, key);
    if (hit && value.staged?.length) session?.restage(value.staged);
    return { result: value.result, ...(value.error === undefined ? {} : { error: value.error }) };
  }
}
