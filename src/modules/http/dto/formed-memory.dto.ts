import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `GET /entities/:entityId/formed-memories` query. */
export class FormedMemoryListQueryDto {
  @ApiPropertyOptional({
    description:
      'Words to look for: the active memories that best match them, best first (full-text, fused with vectors when the long-term tier has an embedder), at most `limit` (10 by default, 100 at most), with no cursor; not with `state`, `asOf` or `cursor`',
    example: 'where does she live',
  })
  @IsOptional()
  @MaxLength(2_000)
  @IsString({ message: 'q must be a string: the words to look for' })
  q?: string;

  @ApiPropertyOptional({
    enum: ['active', 'all'],
    default: 'active',
    description: 'Active memories (what holds now), or every version',
  })
  @IsOptional()
  @IsIn(['active', 'all'], { message: 'state must be active or all' })
  state?: 'active' | 'all';

  @ApiPropertyOptional({
    description: 'What held at this time (ISO 8601): overrides `state`',
    example: '2026-06-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'asOf must be an ISO 8601 date or time' })
  asOf?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 200,
    default: 50,
    description: 'Most memories in the page: 1–200 (default 50); with `q`, 1–100 (default 10)',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(200, { message: 'limit must be at most 200 (100 with q)' })
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page, for the next one' })
  @IsOptional()
  @MaxLength(100)
  @IsString()
  cursor?: string;
}

/** `POST /entities/:entityId/formed-memories/:memoryId/corrections` body. */
export class CorrectFormedMemoryDto {
  @ApiProperty({ description: 'What the memory should say', example: 'The user lives in Porto' })
  @MaxLength(500, { message: 'text must be at most 500 characters' })
  @IsString({ message: 'text must be a string' })
  text!: string;
}

/** Where a formed memory came from. */
export class MemorySourceDto {
  @ApiProperty() conversationId!: string;
  @ApiProperty({ type: [String], description: 'The messages it rests on' }) messageIds!: string[];
  @ApiProperty({ description: 'The run whose turn it was formed from' }) runId!: string;
}

/** One version of a formed memory. */
export class FormedMemoryDto {
  @ApiProperty() id!: string;
  @ApiProperty() entityId!: string;
  @ApiProperty() text!: string;
  @ApiProperty({ description: 'fact, preference, event, … as the agent is configured' })
  kind!: string;
  @ApiProperty({ type: [MemorySourceDto] }) sources!: MemorySourceDto[];
  @ApiProperty({ description: 'When what it rests on was said (epoch ms)' }) observedAt!: number;
  @ApiPropertyOptional({ description: 'From when it holds, when the user said (epoch ms)' })
  validFrom?: number;
  @ApiPropertyOptional({ description: 'Until when it held: set once closed (epoch ms)' })
  validUntil?: number;
  @ApiPropertyOptional({ description: 'The version it replaced' }) supersedes?: string;
  @ApiPropertyOptional({ description: 'The version that replaced it' }) supersededBy?: string;
  @ApiPropertyOptional({ enum: ['edit'], description: 'A version a person wrote' })
  origin?: string;
  @ApiProperty() createdAt!: number;
  @ApiProperty() updatedAt!: number;
}

/** A page of formed memories. */
export class FormedMemoriesDto {
  @ApiProperty({ type: [FormedMemoryDto] }) memories!: FormedMemoryDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page' }) cursor?: string;
}

/** A memory with every version of it, oldest first. */
export class FormedMemoryHistoryDto {
  @ApiProperty({ type: FormedMemoryDto }) memory!: FormedMemoryDto;
  @ApiProperty({ type: [FormedMemoryDto] }) history!: FormedMemoryDto[];
}

/** A formation job that spent its attempts. */
export class FailedFormationDto {
  @ApiProperty() jobId!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty() runId!: string;
  @ApiProperty() error!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ description: 'When the job was queued (epoch ms)' }) at!: number;
}

/** An entity's failed formation jobs, a page in job id order. */
export class FailedFormationsDto {
  @ApiProperty({ type: [FailedFormationDto] }) failures!: FailedFormationDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page' }) cursor?: string;
}

/** `GET /entities/:entityId/formation-failures` query. */
export class FormationFailuresQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @Max(100)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page, for the next one' })
  @IsOptional()
  @MaxLength(250)
  @IsString()
  cursor?: string;
}

/** What became of one candidate of a formation job. */
export class AppliedOperationDto {
  @ApiProperty({ description: "The candidate's position in the job" }) candidate!: number;
  @ApiProperty({ enum: ['ADD', 'UPDATE', 'INVALIDATE', 'NONE'] }) op!: string;
  @ApiPropertyOptional({ description: 'The memory written, or matched' }) memoryId?: string;
  @ApiPropertyOptional({ description: 'The memory closed' }) target?: string;
  @ApiPropertyOptional({ description: "Why the rules changed the model's choice" })
  overruled?: string;
}

/** What running a failed formation job again did. */
export class FormationRerunDto {
  @ApiProperty({
    enum: ['written', 'already-written', 'failed', 'not-rerunnable'],
    description:
      'written (or found written): the failure is gone; failed: kept, with this error and one more attempt; not-rerunnable: noted before re-runs kept what the job read',
  })
  status!: string;
  @ApiPropertyOptional({ type: [AppliedOperationDto] }) operations?: AppliedOperationDto[];
  @ApiPropertyOptional() error?: string;
}
