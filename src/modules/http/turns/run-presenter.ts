import type { AgentRunRecord, AgentRunResult } from '../../agent/interfaces/agent-run.interface.js';
import type { AgentRunSteps } from '../../agent/interfaces/agent-run-steps.interface.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { publicErrorMessage } from '../errors/public-error-message.js';

/** A run result as the tenant sees it: its own conversation id, not the stored one. */
export function presentResult(scope: TenantScope, result: AgentRunResult): AgentRunResult {
  return { ...result, conversationId: scope.owned(result.conversationId, 'Run not found') };
}

/** A run record as the tenant sees it; another tenant's run is a 404. */
export function presentRecord(scope: TenantScope, record: AgentRunRecord): AgentRunRecord {
  return {
    ...record,
    conversationId: scope.owned(record.conversationId, `Run ${record.runId} not found`),
    ...(record.result ? { result: presentResult(scope, record.result) } : {}),
    ...(record.error
      ? { error: { name: record.error.name, message: publicErrorMessage(record.error) } }
      : {}),
  };
}

/** A run's steps as the tenant sees them: its own conversation and entity ids. */
export function presentSteps(scope: TenantScope, steps: AgentRunSteps): AgentRunSteps {
  const notFound = `Run ${steps.runId} not found`;
  return {
    ...steps,
    conversationId: scope.owned(steps.conversationId, notFound),
    ...(steps.longterm
      ? {
          longterm: { ...steps.longterm, entityId: scope.owned(steps.longterm.entityId, notFound) },
        }
      : {}),
  };
}
