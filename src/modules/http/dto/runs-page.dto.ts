import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { RunRecordDto } from './responses.dto.js';

/** `GET /conversations/:conversationId/runs` query. */
export class RunsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @Max(100)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

/** A page of a conversation's runs, newest first. */
export class RunsPageDto {
  @ApiProperty({ type: [RunRecordDto] }) runs!: RunRecordDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last' })
  cursor?: string;
}
