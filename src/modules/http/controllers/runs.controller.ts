import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AgentRunRecord } from '../../agent/interfaces/agent-run.interface.js';
import { RUN_ID_PATTERN } from '../../agent/runs/run-id.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { HttpErrorDto, RunRecordDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { presentRecord, presentSteps } from '../turns/run-presenter.js';
import { RunStepsDto } from '../dto/run-steps.dto.js';
import type { AgentRunSteps } from '../../agent/interfaces/agent-run-steps.interface.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** Reads runs: status, and result or error; and each run's steps. */
@ApiTags('runs')
@AgentMemoryRoutes()
@Controller('runs')
export class RunsController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get(':runId')
  @ApiOperation({
    summary: "A run's status (queued, running, completed, failed) and result or error",
  })
  @ApiOkResponse({ type: RunRecordDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'Unknown, expired or another tenant’s' })
  async run(
    @RequestTenant() scope: TenantScope,
    @Param('runId') runId: string,
  ): Promise<AgentRunRecord> {
    if (!RUN_ID_PATTERN.test(runId)) throw new NotFoundException('Run not found');
    const notFound = `Run ${runId} not found`;
    const record = await this.services.agent.getRun(runId);
    if (!record) throw new NotFoundException(notFound);
    return presentRecord(scope, record);
  }

  @Get(':runId/steps')
  @ApiOperation({
    summary:
      "A run's steps: each model call and tool call, whether a retry replayed it from the run cache, the long-term rows staged, flushed and refused",
    description: 'Read from the run cache, so available for the run retention (7 days by default).',
  })
  @ApiOkResponse({ type: RunStepsDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'Unknown, expired or another tenant’s' })
  async steps(
    @RequestTenant() scope: TenantScope,
    @Param('runId') runId: string,
  ): Promise<AgentRunSteps> {
    if (!RUN_ID_PATTERN.test(runId)) throw new NotFoundException('Run not found');
    const steps = await this.services.agent.runSteps(runId);
    if (!steps) throw new NotFoundException(`Run ${runId} not found`);
    return presentSteps(scope, steps);
  }
}
