import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** An entity's profile: the document in the app's schema, and which version it is. */
export class EntityProfileDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The profile, in the shape of the schema the agent is configured with',
  })
  document!: Record<string, unknown>;
  @ApiProperty({ description: '1 for the first version, one more per change' }) version!: number;
  @ApiProperty({ description: 'When this version was made (epoch ms)' }) updatedAt!: number;
  @ApiProperty({ enum: ['formation', 'edit'] }) origin!: 'formation' | 'edit';
  @ApiPropertyOptional({ description: 'The run whose formation job made it' }) runId?: string;
}

/** One version of a profile, with the merge patch that made it. */
export class EntityProfileVersionDto extends EntityProfileDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'RFC 7396 merge patch' })
  patch!: Record<string, unknown>;
}

/** A page of a profile's versions, oldest first. */
export class EntityProfileHistoryDto {
  @ApiProperty({ type: [EntityProfileVersionDto] }) versions!: EntityProfileVersionDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page' }) cursor?: string;
}

/** `GET …/profile/history?limit=&cursor=`. */
export class EntityProfileHistoryQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @Max(100)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The version after which the page starts' })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @IsInt()
  cursor?: number;
}
