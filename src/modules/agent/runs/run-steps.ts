import type { StagedRow } from '../../longterm/session/longterm-session.js';
import type { KernelToolResult } from '../../kernel/interfaces/kernel-filter.interface.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';
import type {
  AgentModelStep,
  AgentRunFlush,
  AgentToolStep,
} from '../interfaces/agent-run-steps.interface.js';

/** The run-cache key of the long-term flush outcome. */
export const FLUSH_KEY = 'longterm:flush';

/** The run-cache key prefix of a replay mark (`replayed:<step key>`). */
export const REPLAYED_PREFIX = 'replayed:';

const MODEL_KEY = /^llm:(\d+):(\d+)$/;
const TOOL_KEY = /^tool:(\d+):(\d+):(\d+)$/;

/**
 * A run's steps, read back from its run-cache entries: each model response (`llm:scope:round`) and
 * tool step (`tool:scope:round:index`), whether a later attempt replayed it, and the flush outcome.
 */
export function stepsOfEntries(entries: ReadonlyArray<[string, string]>): {
  steps: Array<AgentModelStep | AgentToolStep>;
  longterm?: AgentRunFlush;
} {
  const values = new Map(entries);
  const replayed = (key: string) => values.has(`${REPLAYED_PREFIX}${key}`);
  const models = new Map<string, AgentModelStep>();
  const tools: AgentToolStep[] = [];
  for (const [key, json] of entries) {
    const model = MODEL_KEY.exec(key);
    if (model) {
      const response = JSON.parse(json) as LlmResponse;
      models.set(`${model[1]}:${model[2]}`, {
        type: 'model',
        scope: Number(model[1]),
        round: Number(model[2]),
        replayed: replayed(key),
        content: response.message.content,
        toolCalls: response.message.toolCalls ?? [],
        usage: response.usage,
        ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
      });
      continue;
    }
    const tool = TOOL_KEY.exec(key);
    if (!tool) continue;
    const step = JSON.parse(json) as KernelToolResult & { staged?: StagedRow[] };
    tools.push({
      type: 'tool',
      scope: Number(tool[1]),
      round: Number(tool[2]),
      index: Number(tool[3]),
      replayed: replayed(key),
      ...('result' in step ? { result: step.result } : {}),
      ...(step.error === undefined ? {} : { error: step.error }),
      staged: (step.staged ?? []).map((row) => ({
        key: row.key,
        value: JSON.parse(row.value) as unknown,
      })),
    });
  }
  for (const tool of tools) {
    const call = models.get(`${tool.scope}:${tool.round}`)?.toolCalls[tool.index];
    if (call) tool.call = call;
  }
  const steps = [...models.values(), ...tools].sort(
    (a, b) =>
      a.scope - b.scope ||
      a.round - b.round ||
      (a.type === 'tool' ? a.index + 1 : 0) - (b.type === 'tool' ? b.index + 1 : 0),
  );
  const flush = values.get(FLUSH_KEY);
  return { steps, ...(flush ? { longterm: JSON.parse(flush) as AgentRunFlush } : {}) };
}
