import type { Attributes, Span } from '@opentelemetry/api';
import { ATTR } from '../../common/telemetry/attributes.js';
import type { AgentRunResult } from './interfaces/agent-run.interface.js';

/** The span name of one attempt of an agent run (GenAI `invoke_agent`). */
export const RUN_SPAN = 'invoke_agent';

/** The attributes an attempt's span starts with: ids only, never contents. */
export function runSpanAttributes(run: {
  runId: string;
  conversationId: string;
  entityId?: string;
}): Attributes {
  return {
    [ATTR.operation]: 'invoke_agent',
    [ATTR.runId]: run.runId,
    [ATTR.conversationId]: run.conversationId,
    ...(run.entityId === undefined ? {} : { [ATTR.entityId]: run.entityId }),
  };
}

/** What a committed attempt adds to its span: tokens of the turn and its long-term flush. */
export function recordRunResult(span: Span, result: AgentRunResult): void {
  span.setAttributes({
    [ATTR.outcome]: 'completed',
    [ATTR.inputTokens]: result.usage.promptTokens,
    [ATTR.outputTokens]: result.usage.completionTokens,
    [ATTR.longtermFlushed]: result.longterm.flushed,
    [ATTR.longtermRefused]: result.longterm.refused,
  });
}
