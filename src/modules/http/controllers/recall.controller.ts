import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { RecallHitsDto, RecallQueryDto } from '../dto/recall.dto.js';
import { HttpErrorDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';
import { tenantRecall } from './tenant-recall.js';

/** Recall: an entity's records that best match some words. */
@ApiTags('memories')
@AgentMemoryRoutes()
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The long-term tier is off' })
@Controller('entities/:entityId/recall')
export class RecallController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({
    summary:
      "Recall an entity's records and messages by their words and meaning, best match first (paged, byte-budgeted)",
    description:
      'Full-text search (case- and accent-insensitive words and their English stems, question words left out; BM25 or the backend’s equivalent; message hits reranked by their conversation neighbours) and, when an embedder is configured, vector search (cosine similarity), fused by reciprocal rank fusion (k = 60), over the records, the messages, or both (`scope`). A page holds up to `k` hits and ends early at the byte budget; at most 100 hits are ranked over all pages.',
  })
  @ApiOkResponse({ type: RecallHitsDto })
  async recall(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: RecallQueryDto,
  ): Promise<RecallHitsDto> {
    const { q, ...rest } = query;
    return tenantRecall(
      this.services.longterm,
      scope,
      { ...rest, entityId, query: q },
      this.services.pageBytes,
      'route',
    );
  }
}
