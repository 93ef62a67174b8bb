import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { FormedMemories } from '../../formation/formed-memories.js';
import { correctMemory, forgetMemory } from '../../formation/memory-curation.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import {
  CorrectFormedMemoryDto,
  FailedFormationsDto,
  FormationFailuresQueryDto,
  FormationRerunDto,
  FormedMemoriesDto,
  FormedMemoryDto,
  FormedMemoryHistoryDto,
  FormedMemoryListQueryDto,
} from '../dto/formed-memory.dto.js';
import { HttpErrorDto } from '../dto/responses.dto.js';
import { FormationJobsDto, FormationJobsQueryDto } from '../dto/formation-job.dto.js';
import {
  failedFormationsPage,
  formationJobsPage,
  isRunId,
  rerunShown,
} from '../tenancy/formation-job-views.js';
import {
  DEFAULT_FORMED_MEMORY_SEARCH,
  MAX_FORMED_MEMORY_SEARCH,
  searchFormedMemories,
} from '../tenancy/formed-memory-search.js';
import { formedMemoryShown } from '../tenancy/formed-memory-view.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** What a formed memory's id looks like (`m` and 22 base64url characters). */
const MEMORY_ID = /^m[A-Za-z0-9_-]{22}$/;
/** Default `limit` of a list. */
const DEFAULT_LIMIT = 50;

/**
 * The memories formed from an entity's conversations: list them (active, every version, or as of
 * a time), read one with its history, correct one (a new version) or retract it (closed, kept),
 * and see the formation jobs that failed.
 */
@ApiTags('formed-memories')
@AgentMemoryRoutes()
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The long-term tier is off' })
@Controller('entities/:entityId')
export class FormedMemoriesController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get('formed-memories')
  @ApiOperation({
    summary:
      "A page of the entity's formed memories in id order, or (q) the active ones that best match some words",
  })
  @ApiOkResponse({ type: FormedMemoriesDto })
  async list(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: FormedMemoryListQueryDto,
  ): Promise<FormedMemoriesDto> {
    if (query.q !== undefined) return this.search(scope, entityId, query);
    const id = scope.scoped(entityId, 'entityId');
    if (query.cursor !== undefined && !MEMORY_ID.test(query.cursor))
      throw new BadRequestException('cursor is not one this route gave');
    const asOf = query.asOf === undefined ? undefined : Date.parse(query.asOf);
    if (asOf !== undefined && !Number.isFinite(asOf))
      throw new BadRequestException('asOf must be a date and time such as 2026-06-01T00:00:00Z');
    const { memories, next } = await this.memories().list(id, {
      limit: query.limit ?? DEFAULT_LIMIT,
      ...(query.state ? { state: query.state } : {}),
      ...(asOf === undefined ? {} : { asOf }),
      ...(query.cursor ? { after: query.cursor } : {}),
    });
    return {
      memories: memories.map((memory) => formedMemoryShown(memory, entityId, scope)),
      ...(next ? { cursor: next } : {}),
    };
  }

  /** The `q` form of the list: the active memories that best match some words, best first. */
  private search(
    scope: TenantScope,
    entityId: string,
    query: FormedMemoryListQueryDto,
  ): Promise<FormedMemoriesDto> {
    const others = (['state', 'asOf', 'cursor'] as const).filter(
      (name) => query[name] !== undefined,
    );
    if (others.length > 0)
      throw new BadRequestException(
        `q searches the active memories, best match first: leave out ${others.join(', ')}`,
      );
    const limit = query.limit ?? DEFAULT_FORMED_MEMORY_SEARCH;
    if (limit > MAX_FORMED_MEMORY_SEARCH)
      throw new BadRequestException(`limit must be at most ${MAX_FORMED_MEMORY_SEARCH} with q`);
    return searchFormedMemories(this.services, scope, entityId, query.q!, limit);
  }

  @Get('formed-memories/:memoryId')
  @ApiOperation({ summary: 'One memory, with every version of it (oldest first) and its sources' })
  @ApiOkResponse({ type: FormedMemoryHistoryDto })
  @ApiNotFoundResponse({ type: HttpErrorDto })
  async one(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('memoryId') memoryId: string,
  ): Promise<FormedMemoryHistoryDto> {
    const id = scope.scoped(entityId, 'entityId');
    const memories = this.memories();
    const memory = MEMORY_ID.test(memoryId) ? await memories.get(id, memoryId) : null;
    if (!memory) throw notFound(memoryId, entityId);
    const history = await memories.history(id, memoryId);
    return {
      memory: formedMemoryShown(memory, entityId, scope),
      history: history.map((version) => formedMemoryShown(version, entityId, scope)),
    };
  }

  @Post('formed-memories/:memoryId/corrections')
  @ApiOperation({
    summary: 'Correct a memory: a new version with this text supersedes it (both kept)',
  })
  @ApiOkResponse({ type: FormedMemoryDto, description: 'The version now active' })
  @ApiNotFoundResponse({ type: HttpErrorDto })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'The memory is no longer active' })
  @HttpCode(HttpStatus.OK)
  async correct(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('memoryId') memoryId: string,
    @Body() body: CorrectFormedMemoryDto,
  ): Promise<FormedMemoryDto> {
    const id = scope.scoped(entityId, 'entityId');
    const version = MEMORY_ID.test(memoryId)
      ? await correctMemory(this.memories(), id, memoryId, body.text)
      : null;
    if (!version) throw notFound(memoryId, entityId);
    return formedMemoryShown(version, entityId, scope);
  }

  @Post('formed-memories/:memoryId/invalidation')
  @ApiOperation({ summary: 'Retract a memory: it stops being active now, and is kept' })
  @ApiOkResponse({ type: FormedMemoryDto, description: 'The closed memory' })
  @ApiNotFoundResponse({ type: HttpErrorDto })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'The memory is no longer active' })
  @HttpCode(HttpStatus.OK)
  async invalidate(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('memoryId') memoryId: string,
  ): Promise<FormedMemoryDto> {
    const id = scope.scoped(entityId, 'entityId');
    const closed = MEMORY_ID.test(memoryId)
      ? await forgetMemory(this.memories(), id, memoryId)
      : null;
    if (!closed) throw notFound(memoryId, entityId);
    return formedMemoryShown(closed, entityId, scope);
  }

  @Get('formation-failures')
  @ApiOperation({
    summary: 'Formation jobs of the entity that spent their attempts, a page in job id order',
  })
  @ApiOkResponse({ type: FailedFormationsDto })
  async failures(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: FormationFailuresQueryDto,
  ): Promise<FailedFormationsDto> {
    const id = scope.scoped(entityId, 'entityId');
    const { items, cursor } = await failedFormationsPage(this.memories(), scope, id, query);
    return { failures: items, ...(cursor ? { cursor } : {}) };
  }

  @Get('formation-jobs')
  @ApiOperation({
    summary:
      "The entity's written formation jobs, in job id order (of one conversation with conversationId): operations, model, tokens",
  })
  @ApiOkResponse({ type: FormationJobsDto })
  async jobs(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: FormationJobsQueryDto,
  ): Promise<FormationJobsDto> {
    const id = scope.scoped(entityId, 'entityId');
    const { items, cursor } = await formationJobsPage(this.memories(), scope, id, {
      ...query,
      conversationId:
        query.conversationId === undefined
          ? undefined
          : scope.scoped(query.conversationId, 'conversationId'),
    });
    return { jobs: items, ...(cursor ? { cursor } : {}) };
  }

  @Post('formation-failures/:runId/rerun')
  @ApiOperation({
    summary:
      'Run a failed formation job again, now, one attempt (by its run id): written, the failure is gone; failed, it is kept',
  })
  @ApiOkResponse({ type: FormationRerunDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No such failed job' })
  @HttpCode(HttpStatus.OK)
  async rerun(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('runId') runId: string,
  ): Promise<FormationRerunDto> {
    const id = scope.scoped(entityId, 'entityId');
    const rerun = isRunId(runId) ? await this.services.agent.rerunFormation(id, runId) : null;
    if (!rerun)
      throw new NotFoundException(
        `No failed formation job of run ${JSON.stringify(runId)} for ${entityId}`,
      );
    return rerunShown(rerun);
  }

  private memories(): FormedMemories {
    return new FormedMemories(this.services.longterm);
  }
}

function notFound(memoryId: string, entityId: string): NotFoundException {
  return new NotFoundException(`No formed memory ${JSON.stringify(memoryId)} for ${entityId}`);
}
