import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { FastBody, hasOnlyKeys } from '../validation/fast-body.js';

/** `GET /entities/:entityId/memories` query. */
export class MemorySearchQueryDto {
  @ApiPropertyOptional({
    description: 'Keys starting with this, taken literally (no wildcards); empty → every key',
    default: '',
  })
  @IsOptional()
  @IsString()
  prefix?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'Most records in the page; a page also ends at the byte budget (1 MiB by default)',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(1000)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page, for the next one' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

/** `PUT /entities/:entityId/memories/:key` body. */
export class PutMemoryDto {
  @ApiProperty({ description: 'Any JSON value', example: { city: 'Lisbon' } })
  @IsDefined({ message: 'value is required: any JSON value but null' })
  value!: unknown;

  @ApiPropertyOptional({
    minimum: 0,
    description:
      "The write's sequence number: applied iff ≥ the stored one. Absent → the entity's next counter value",
  })
  @IsOptional()
  @Min(0)
  @IsInt({ message: 'seq must be an integer' })
  seq?: number;

  @ApiPropertyOptional({ minimum: 1, description: 'Expire the record this long after the write' })
  @IsOptional()
  @Min(1)
  @IsInt({ message: 'ttlMs must be an integer' })
  ttlMs?: number;
}

/** `DELETE /entities/:entityId/memories/:key` query. */
export class DeleteMemoryQueryDto {
  @ApiProperty({
    minimum: 0,
    description: 'Deletes iff ≥ the stored seq (a seq-guarded tombstone)',
  })
  @Type(() => Number)
  @Min(0)
  @IsInt({ message: 'seq must be an integer' })
  @IsDefined({
    message: 'seq is required: DELETE …/memories/:key?seq=N deletes iff N ≥ the stored seq',
  })
  seq!: number;
}

/**
 * `PUT /conversations/:conversationId/working-memory/:key` body. Its fast check is its one rule:
 * any value but `null`.
 */
@FastBody((body) => body.value !== undefined && body.value !== null && hasOnlyKeys(body, ['value']))
export class PutWorkingMemoryDto {
  @ApiProperty({ description: 'Any JSON value', example: ['step 1 done'] })
  @IsDefined({ message: 'value is required: any JSON value but null' })
  value!: unknown;
}
