import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Headers,
  NotFoundException,
  Param,
  Patch,
  Query,
  UnprocessableEntityException,
} from '@nestjs/common';
import {
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { EntityProfiles } from '../../formation/profile/entity-profiles.js';
import { isJsonObject } from '../../formation/profile/merge-patch.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import {
  EntityProfileDto,
  EntityProfileHistoryDto,
  EntityProfileHistoryQueryDto,
} from '../dto/entity-profile.dto.js';
import { HttpErrorDto } from '../dto/responses.dto.js';
import { RequestTenant } from '../tenancy/request-tenant.decorator.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { AgentMemoryRoutes } from './agent-memory-http.decorators.js';

/** Default `limit` of the history. */
const DEFAULT_LIMIT = 50;

/**
 * An entity's profile (the agent's `formation.profile`): read it, change it with a JSON Merge Patch
 * (RFC 7396; a new version, checked against the schema), and read its versions.
 */
@ApiTags('entity-profile')
@AgentMemoryRoutes()
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The long-term tier is off' })
@ApiNotFoundResponse({ type: HttpErrorDto, description: 'No profile, or none configured' })
@Controller('entities/:entityId/profile')
export class EntityProfileController {
  constructor(private readonly services: AgentMemoryHttpServices) {}

  @Get()
  @ApiOperation({ summary: "The entity's profile" })
  @ApiOkResponse({ type: EntityProfileDto })
  async get(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
  ): Promise<EntityProfileDto> {
    const profile = await this.profiles().get(scope.scoped(entityId, 'entityId'));
    if (!profile) throw new NotFoundException(`${entityId} has no profile yet`);
    return profile;
  }

  @Patch()
  @ApiOperation({
    summary:
      'Change the profile with a JSON Merge Patch (RFC 7396): members given are set, null removes one, others are kept; a new version',
  })
  @ApiBody({ schema: { type: 'object', additionalProperties: true } })
  @ApiOkResponse({ type: EntityProfileDto, description: 'The profile now' })
  @ApiUnprocessableEntityResponse({
    type: HttpErrorDto,
    description: 'The result would not fit the schema or the size',
  })
  async patch(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Headers('content-type') contentType: string | undefined,
    @Body() patch: unknown,
  ): Promise<EntityProfileDto> {
    const type = contentType?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/merge-patch+json' && type !== 'application/json')
      throw new BadRequestException(
        'send the patch as application/merge-patch+json (or application/json)',
      );
    if (patch === undefined)
      throw new BadRequestException(
        'no JSON body was read: send the patch as application/json, or have the app parse application/merge-patch+json',
      );
    if (!isJsonObject(patch))
      throw new BadRequestException('a profile patch is a JSON object (RFC 7396)');
    const outcome = await this.profiles().edit(scope.scoped(entityId, 'entityId'), patch);
    if (outcome.status === 'refused') throw new UnprocessableEntityException(outcome.reason);
    if (!outcome.profile) throw new NotFoundException(`${entityId} has no profile yet`);
    return outcome.profile;
  }

  @Get('history')
  @ApiOperation({ summary: "A page of the profile's versions, oldest first, with their patches" })
  @ApiOkResponse({ type: EntityProfileHistoryDto })
  async history(
    @RequestTenant() scope: TenantScope,
    @Param('entityId') entityId: string,
    @Query() query: EntityProfileHistoryQueryDto,
  ): Promise<EntityProfileHistoryDto> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const versions = await this.profiles().history(
      scope.scoped(entityId, 'entityId'),
      limit,
      query.cursor,
    );
    return {
      versions,
      ...(versions.length === limit ? { cursor: String(versions.at(-1)!.version) } : {}),
    };
  }

  private profiles(): EntityProfiles {
    // The long-term tier first: off, it answers 503 as the other long-term routes do.
    void this.services.longterm;
    const profiles = this.services.agent.profiles;
    if (!profiles)
      throw new NotFoundException(
        "No entity profile is configured (the agent's formation.profile)",
      );
    return profiles;
  }
}
