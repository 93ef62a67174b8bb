import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MemoryRecordDto } from './responses.dto.js';

/** `GET /entities/:entityId/recall` query. */
export class RecallQueryDto {
  @ApiProperty({
    description:
      'What to look for: words matched case- and accent-insensitively (at most 2,000 characters; the first 32 distinct words count)',
    example: 'where does she work',
  })
  // Checked bottom-up, first failure reported: a missing q is "required", not "too long".
  @MaxLength(2_000)
  @IsString({ message: 'q is required: the words to recall by' })
  q!: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'Most hits in the page',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(100)
  @Min(1)
  @IsInt()
  k?: number;

  @ApiPropertyOptional({
    enum: ['records', 'messages', 'all'],
    default: 'records',
    description:
      "What to search: the entity's long-term records, the messages of its conversations (indexed by an agent with `recall.messages`), or all of both, merged by score",
  })
  @IsOptional()
  @IsIn(['records', 'messages', 'all'], { message: 'scope must be records, messages or all' })
  scope?: 'records' | 'messages' | 'all';

  @ApiPropertyOptional({
    description:
      'Only messages of this conversation (needs scope messages or all; records are left out)',
  })
  @IsOptional()
  @IsString()
  conversationId?: string;

  @ApiPropertyOptional({
    enum: ['hybrid', 'lexical', 'vector'],
    default: 'hybrid',
    description:
      'hybrid: full-text and, when an embedder is configured, vector lists fused; lexical or vector: one list',
  })
  @IsOptional()
  @IsIn(['hybrid', 'lexical', 'vector'], { message: 'mode must be hybrid, lexical or vector' })
  mode?: 'hybrid' | 'lexical' | 'vector';

  @ApiPropertyOptional({
    description:
      'Only records whose key starts with this (literally; needs scope records or all; messages are left out)',
  })
  @IsOptional()
  @IsString()
  prefix?: string;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page, for the next one' })
  @IsOptional()
  @Matches(/^[1-9]\d{0,2}$/, { message: 'cursor is not one this route gave' })
  cursor?: string;
}

/** Where a hit stood in one ranked list, and its score there. */
export class RecallRankDto {
  @ApiProperty({ description: '1-based rank in the list' }) rank!: number;
  @ApiProperty({ description: "The list's own score" }) score!: number;
}

/** A recalled message: where it is, who said it, and its text. */
export class RecalledMessageDto {
  @ApiProperty({ description: 'Its conversation' }) conversationId!: string;
  @ApiProperty({ description: 'Its 1-based position in the conversation (the version it made)' })
  position!: number;
  @ApiProperty({ description: "The message's id" }) messageId!: string;
  @ApiProperty({ enum: ['user', 'assistant'] }) role!: 'user' | 'assistant';
  @ApiProperty({ description: 'Its text (the first 16,000 characters are indexed and shown)' })
  text!: string;
  @ApiProperty({ description: 'When its turn ran (epoch ms)' }) at!: number;
}

/** One recalled record (`source: record`: `key` and `record`) or message (`message`). */
export class RecallHitDto {
  @ApiProperty({ enum: ['record', 'message'] }) source!: 'record' | 'message';
  @ApiPropertyOptional({ description: "A record's key" }) key?: string;
  @ApiPropertyOptional({ type: MemoryRecordDto, description: 'The record, for a record hit' })
  record?: MemoryRecordDto;
  @ApiPropertyOptional({ type: RecalledMessageDto, description: 'The message, for a message hit' })
  message?: RecalledMessageDto;
  @ApiProperty({
    description:
      'Reciprocal-rank-fusion score, or, when `rerank` is present, the final score from 0 to 1 (higher is better)',
  })
  score!: number;
  @ApiPropertyOptional({ type: RecallRankDto, description: 'Its place in the full-text list' })
  lexical?: RecallRankDto;
  @ApiPropertyOptional({
    type: RecallRankDto,
    description: 'Its place in the vector list (score: cosine similarity)',
  })
  vector?: RecallRankDto;
  @ApiPropertyOptional({
    type: RecallRankDto,
    description: "Its place in the reranking model's order (score: the model's), after a rerank",
  })
  rerank?: RecallRankDto;
}

/** `GET /entities/:entityId/recall`. */
export class RecallHitsDto {
  @ApiProperty({ type: [RecallHitDto] }) hits!: RecallHitDto[];
  @ApiPropertyOptional({
    description: 'Present when more hits may follow: pass it as `cursor` for the next page',
  })
  cursor?: string;
}
