import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  Put,
} from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { PutWorkingMemoryDto } from '../dto/memory.dto.js';
import { HttpErrorDto, WorkingMemoryDto, WorkingMemoryEntryDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** A conversation's working memory: read it whole, correct an entry, remove one. */
@ApiTags('working-memory')
@AgentMemoryRoutes()
@Controller('conversations/:conversationId/working-memory')
export class WorkingMemoryController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({
    summary: 'Every entry with its size, least recently used first (reading is not a use)',
  })
  @ApiOkResponse({ type: WorkingMemoryDto })
  async read(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
  ): Promise<WorkingMemoryDto> {
    const id = scope.scoped(conversationId, 'conversationId');
    const snapshot = await this.services.workingMemory.inspect(id);
    return {
      conversationId,
      sizeBytes: snapshot?.sizeBytes ?? 0,
      entries: snapshot?.entries ?? [],
    };
  }

  @Get(':key')
  @ApiOperation({ summary: 'One entry (`key` URL-encoded), or 404; reading is not a use' })
  @ApiOkResponse({ type: WorkingMemoryEntryDto })
  @ApiNotFoundResponse({ type: HttpErrorDto })
  async entry(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Param('key') key: string,
  ): Promise<WorkingMemoryEntryDto> {
    const id = scope.scoped(conversationId, 'conversationId');
    const snapshot = await this.services.workingMemory.inspect(id);
    const entry = snapshot?.entries.find((candidate) => candidate.key === key);
    if (!entry) throw new NotFoundException(`No working-memory entry ${JSON.stringify(key)}`);
    return entry;
  }

  @Put(':key')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Set an entry (`key` URL-encoded), under the memory’s caps' })
  @ApiNoContentResponse()
  @ApiPayloadTooLargeResponse({ type: HttpErrorDto, description: 'Over the hard cap' })
  async set(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Param('key') key: string,
    @Body() body: PutWorkingMemoryDto,
  ): Promise<void> {
    const id = scope.scoped(conversationId, 'conversationId');
    await this.services.workingMemory.for(id).set(key, body.value);
  }

  @Delete(':key')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove an entry' })
  @ApiNoContentResponse()
  async remove(
    @RequestTenant() scope: TenantScope,
    @Param('conversationId') conversationId: string,
    @Param('key') key: string,
  ): Promise<void> {
    const id = scope.scoped(conversationId, 'conversationId');
    await this.services.workingMemory.for(id).delete(key);
  }
}
