import { NotFoundException } from '@nestjs/common';
import * as z from 'zod/v4';
import { RUN_ID_PATTERN } from '../../agent/runs/run-id.js';
import { FormedMemories } from '../../formation/formed-memories.js';
import {
  failedFormationsPage,
  formationJobsPage,
  MAX_FORMATION_JOBS_PAGE,
  rerunShown,
} from '../../http/tenancy/formation-job-views.js';
import { defineMemoryTool } from './memory-tool.js';
import { conversationIdInput, entityIdInput } from './tool-input.schemas.js';

const pageInput = {
  limit: z.int().min(1).max(MAX_FORMATION_JOBS_PAGE).optional(),
  cursor: z.string().max(250).optional().describe('The cursor of the previous answer'),
};

/** `formation_jobs`: the REST API's `GET /entities/:entityId/formation-jobs`. */
export const formationJobsTool = defineMemoryTool({
  name: 'formation_jobs',
  title: "List an entity's formation jobs",
  description:
    'The memory formation jobs written for the entity (of one conversation with `conversationId`), ' +
    'in job id order: each with its run, the operations it applied (ADD, UPDATE, INVALIDATE, NONE ' +
    'and why a rule overruled the model), the model, tokens and what it did to the profile. Paged: ' +
    'pass `cursor` from the previous answer.',
  input: z.strictObject({
    entityId: entityIdInput,
    conversationId: conversationIdInput.optional(),
    ...pageInput,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, conversationId, limit, cursor }, { scope, services }) {
    const page = await formationJobsPage(
      new FormedMemories(services.longterm),
      scope,
      scope.scoped(entityId, 'entityId'),
      {
        giver: 'tool',
        ...(limit ? { limit } : {}),
        ...(cursor ? { cursor } : {}),
        ...(conversationId
          ? { conversationId: scope.scoped(conversationId, 'conversationId') }
          : {}),
      },
    );
    return { jobs: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) };
  },
});

/** `formation_failures`: the REST API's `GET /entities/:entityId/formation-failures`. */
export const formationFailuresTool = defineMemoryTool({
  name: 'formation_failures',
  title: "List an entity's failed formation jobs",
  description:
    'Memory formation jobs of the entity that spent their attempts (a model or store failure, a ' +
    'refused write, a full queue), in job id order: the run, the conversation, the error and the ' +
    'attempts. Each can be run again with `formation_rerun`. Paged: pass `cursor`.',
  input: z.strictObject({ entityId: entityIdInput, ...pageInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId, limit, cursor }, { scope, services }) {
    const page = await failedFormationsPage(
      new FormedMemories(services.longterm),
      scope,
      scope.scoped(entityId, 'entityId'),
      { giver: 'tool', ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) },
    );
    return { failures: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) };
  },
});

/** `formation_rerun`: the REST API's `POST /entities/:entityId/formation-failures/:runId/rerun`. */
export const formationRerunTool = defineMemoryTool({
  name: 'formation_rerun',
  title: 'Run a failed formation job again',
  description:
    'Runs a failed memory formation job again, now, one attempt (named by its run id, as ' +
    '`formation_failures` lists it): written, the failure is gone and the operations are returned; ' +
    'failed again, it is kept with the new error. An unknown job is a tool error.',
  input: z.strictObject({
    entityId: entityIdInput,
    runId: z.string().regex(RUN_ID_PATTERN, 'runId must be a run id').describe('The job’s run id'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  async run({ entityId, runId }, { scope, services }) {
    const id = scope.scoped(entityId, 'entityId');
    const { agent } = services;
    if (!agent) throw new NotFoundException('No agent is configured: formation jobs run in one');
    const rerun = await agent.rerunFormation(id, runId);
    if (!rerun)
      throw new NotFoundException(
        `No failed formation job of run ${JSON.stringify(runId)} for ${entityId}`,
      );
    return rerunShown(rerun) as unknown as Record<string, unknown>;
  },
});
