import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AgentRunRecord } from '../../agent/interfaces/agent-run.interface.js';
import { RUN_ID_PATTERN } from '../../agent/runs/run-id.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { HttpErrorDto, RunRecordDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { presentRecord } from '../turns/run-presenter.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** Reads runs: status, and result or error. */
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
}
