import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { RunRecordDto } from './responses.dto.js';

/** The query of a cursor-paged list: `GET /conversations`, `GET /conversations/:id/runs`. */
export class PageQueryDto {
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

/** A conversation of the tenant, as `GET /conversations` lists it. */
export class ConversationListingDto {
  @ApiProperty() conversationId!: string;
  @ApiProperty({
    description: 'When a turn of the conversation was last stored (epoch ms)',
  })
  lastActiveAt!: number;
  @ApiPropertyOptional({
    description:
      "Its title: the one set by PATCH, else its first user message's text (one line, at most 80 characters, cut at a word with …); absent when it has none",
  })
  title?: string;
  @ApiPropertyOptional({
    description:
      'The newest user message: its text on one line, at most 120 characters (`[image]` or `[file]` for an attachment without text)',
  })
  preview?: string;
  @ApiPropertyOptional({
    description: 'Its metadata (at most 16 string values by key); absent when it has none',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  metadata?: Record<string, string>;
}

/** A page of the tenant's conversations, newest activity first. */
export class ConversationsPageDto {
  @ApiProperty({ type: [ConversationListingDto] }) conversations!: ConversationListingDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last' })
  cursor?: string;
}
