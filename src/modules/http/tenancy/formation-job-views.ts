import { BadRequestException } from '@nestjs/common';
import type { FormationRerun } from '../../agent/formation-rerun.js';
import { RUN_ID_PATTERN } from '../../agent/runs/run-id.js';
import type { FailedFormation } from '../../formation/formation-failures.js';
import type { FormationJobRecord, FormedMemories } from '../../formation/formed-memories.js';
import { publicErrorMessage } from '../errors/public-error-message.js';
import { conversationShown } from './formed-memory-view.js';
import type { TenantScope } from './tenant-scope.js';
import type { CursorGiver } from '../controllers/page-cursor.js';

/** Failed (or written) jobs a page lists at most. */
export const MAX_FORMATION_JOBS_PAGE = 100;
/** Written jobs one page of a conversation's jobs reads through at most. */
const MAX_SCANNED_JOBS = 1_000;

/** A page of formation jobs (or failures) as a tenant sees it; `cursor` when there may be more. */
export interface FormationPage<T> {
  items: T[];
  cursor?: string;
}

/** A failed job as a tenant sees it: without the turn it read, the error made public. */
export type FailedFormationShown = Omit<
  FailedFormation,
  'messages' | 'errorName' | 'context' | 'before'
>;

/** Whether a cursor is a formation job's id: its turn's run id, `/`, the formation version. */
function checkJobCursor(cursor: string | undefined, giver: CursorGiver = 'route'): void {
  if (cursor === undefined) return;
  const slash = cursor.lastIndexOf('/');
  if (
    !RUN_ID_PATTERN.test(cursor.slice(0, slash)) ||
    !/^formation-v\d+$/.test(cursor.slice(slash + 1))
  )
    throw new BadRequestException(`cursor is not one this ${giver} gave`);
}

/**
 * The entity's failed formation jobs, a page in job id order (`GET …/formation-failures` and the
 * MCP tool `formation_failures`): what failed, not the turn the job read; the library's own error
 * messages as they are, a driver's or a provider's as a fixed text.
 */
export async function failedFormationsPage(
  memories: FormedMemories,
  scope: TenantScope,
  entityId: string,
  page: { limit?: number; cursor?: string; giver?: CursorGiver },
): Promise<FormationPage<FailedFormationShown>> {
  checkJobCursor(page.cursor, page.giver);
  const limit = page.limit ?? MAX_FORMATION_JOBS_PAGE;
  const failures = await memories.failures(entityId, limit, page.cursor);
  return {
    items: failures.map(({ errorName, messages: _read, context: _c, before: _b, ...failure }) => ({
      ...failure,
      error: publicErrorMessage({ name: errorName ?? 'Error', message: failure.error }),
      conversationId: conversationShown(failure.conversationId, scope),
    })),
    ...(failures.length === limit ? { cursor: failures.at(-1)!.jobId } : {}),
  };
}

/**
 * The entity's written formation jobs, a page in job id order, of one conversation when
 * `conversationId` (stored id) is given (`GET …/formation-jobs` and the MCP tool
 * `formation_jobs`). A conversation's jobs are read through the entity's, at most 1,000 a page:
 * the cursor is the last job read, whether it was listed or not.
 */
export async function formationJobsPage(
  memories: FormedMemories,
  scope: TenantScope,
  entityId: string,
  page: { limit?: number; cursor?: string; conversationId?: string; giver?: CursorGiver },
): Promise<FormationPage<FormationJobRecord>> {
  checkJobCursor(page.cursor, page.giver);
  const limit = page.limit ?? MAX_FORMATION_JOBS_PAGE;
  const jobs: FormationJobRecord[] = [];
  let after = page.cursor;
  for (let scanned = 0; scanned < MAX_SCANNED_JOBS;) {
    const read = await memories.jobs(entityId, MAX_FORMATION_JOBS_PAGE, after);
    for (const job of read) {
      after = job.jobId;
      scanned += 1;
      if (page.conversationId === undefined || job.conversationId === page.conversationId)
        jobs.push({ ...job, conversationId: conversationShown(job.conversationId, scope) });
      if (jobs.length === limit) return { items: jobs, cursor: after };
    }
    if (read.length < MAX_FORMATION_JOBS_PAGE) return { items: jobs };
  }
  return { items: jobs, ...(after ? { cursor: after } : {}) };
}

/** Whether a run id may name a failed job (else: no such job). */
export function isRunId(runId: string): boolean {
  return RUN_ID_PATTERN.test(runId);
}

/** What a re-run did, as a tenant sees it: a failure's error made public like the list's. */
export function rerunShown(rerun: FormationRerun): FormationRerun {
  if ('operations' in rerun) return rerun;
  return {
    status: rerun.status,
    error: publicErrorMessage({ name: rerun.errorName ?? 'Error', message: rerun.error }),
  };
}
