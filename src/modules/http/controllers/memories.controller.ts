import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  NotFoundException,
  Param,
  Put,
  Query,
} from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { LongtermRecord } from '../../longterm/interfaces/longterm-store.interface.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { DeleteMemoryQueryDto, MemorySearchQueryDto, PutMemoryDto } from '../dto/memory.dto.js';
import {
  AppliedDto,
  HttpErrorDto,
  MemoryRecordDto,
  MemoryRecordsDto,
  PutMemoryResultDto,
} from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { recordsWithinBudget } from './page-budget.js';
import { decodeKeyCursor, encodeKeyCursor } from './page-cursor.js';

/** Default `limit` of a search. */
const DEFAULT_SEARCH_LIMIT = 100;

/** An entity's long-term memory: search, read, seq-guarded write and delete. */
@ApiTags('memories')
@AgentMemoryRoutes()
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The long-term tier is off' })
@Controller('entities/:entityId/memories')
export class MemoriesController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({
    summary:
      "Search an entity's records by key prefix (literal, case-sensitive, code-point order, cursor-paged)",
  })
  @ApiOkResponse({ type: MemoryRecordsDto })
  async search(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: MemorySearchQueryDto,
  ): Promise<MemoryRecordsDto> {
    const id = scope.scoped(entityId, 'entityId');
    const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
    const prefix = query.prefix ?? '';
    const after = query.cursor === undefined ? undefined : decodeKeyCursor(query.cursor);
    // A cursor is the last key of a page of this prefix.
    if (after !== undefined && !after.startsWith(prefix))
      throw new BadRequestException('cursor is not one this route gave (for this prefix)');
    const { records, more } = await recordsWithinBudget(
      (chunk, from) => this.services.longterm.store.search(id, prefix, chunk, from),
      { limit, after, budget: this.services.pageBytes },
    );
    const last = records.at(-1);
    return {
      records: records.map((record) => shown(record, entityId)),
      ...(more && last ? { cursor: encodeKeyCursor(last.key) } : {}),
    };
  }

  @Get(':key')
  @ApiOperation({ summary: 'One record (`key` URL-encoded)' })
  @ApiOkResponse({ type: MemoryRecordDto })
  @ApiNotFoundResponse({ type: HttpErrorDto })
  async load(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('key') key: string,
  ): Promise<MemoryRecordDto> {
    const id = scope.scoped(entityId, 'entityId');
    const record = await this.services.longterm.store.load(id, key);
    if (!record) throw new NotFoundException(`No memory ${JSON.stringify(key)} for ${entityId}`);
    return shown(record, entityId);
  }

  @Put(':key')
  @ApiOperation({
    summary: 'Write a record, seq-guarded',
    description:
      'Applied iff the row is absent (or expired) or `seq` ≥ the stored seq. Without `seq` the write takes the entity’s next counter value, so it applies over every earlier write. Answers the record as stored now (the newer one when the write was stale).',
  })
  @ApiOkResponse({ type: PutMemoryResultDto })
  async save(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('key') key: string,
    @Body() body: PutMemoryDto,
  ): Promise<PutMemoryResultDto> {
    const id = scope.scoped(entityId, 'entityId');
    const longterm = this.services.longterm;
    const seq = body.seq ?? (await longterm.nextSeq(id));
    // Through the service: with an embedder, the record gets its vector in the same write.
    const { applied } = await longterm.save({
      entityId: id,
      key,
      value: body.value,
      seq,
      ...(body.ttlMs !== undefined ? { ttlMs: body.ttlMs } : {}),
    });
    const record = await longterm.store.load(id, key);
    if (!record) throw new NotFoundException(`No memory ${JSON.stringify(key)} for ${entityId}`);
    return { applied, record: shown(record, entityId) };
  }

  @Delete(':key')
  @ApiOperation({ summary: 'Delete a record iff `seq` ≥ the stored seq (a tombstone)' })
  @ApiOkResponse({ type: AppliedDto })
  async delete(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Param('key') key: string,
    @Query() query: DeleteMemoryQueryDto,
  ): Promise<AppliedDto> {
    const id = scope.scoped(entityId, 'entityId');
    return this.services.longterm.store.delete(id, key, query.seq);
  }
}

/** A record with the entity id the tenant knows. */
function shown(record: LongtermRecord, entityId: string): MemoryRecordDto {
  return { ...record, entityId };
}
