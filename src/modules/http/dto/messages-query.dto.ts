import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Most messages one page may hold. */
export const MAX_PAGE_SIZE = 1000;

/**
 * `GET /conversations/:conversationId/messages` query: `last=N` (the newest N), or
 * `before=<position>&limit=N` (the N messages before a 1-based position, for paging backwards;
 * `limit` alone is `last`); none of them → the newest 50. Every page also ends at the module's byte
 * budget (`pageBytes`).
 */
export class MessagesQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'The newest N messages' })
  @IsOptional()
  @Type(() => Number)
  @Max(MAX_PAGE_SIZE)
  @Min(1)
  @IsInt()
  last?: number;

  @ApiPropertyOptional({
    minimum: 1,
    description:
      'A 1-based position: the page ends just before it (positions are append-only, so pages stay exact while turns arrive)',
  })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @IsInt()
  before?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: 50,
    description: 'Page size with `before`; alone, the same as `last`',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(MAX_PAGE_SIZE)
  @Min(1)
  @IsInt()
  limit?: number;
}
