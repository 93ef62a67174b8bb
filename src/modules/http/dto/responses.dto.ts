import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ContentPart } from '../../../common/messages/content-parts.js';
import { MESSAGE_PARTS_SCHEMA } from './content-parts.schema.js';

/** A stored chat message (OpenAI-style roles, ids `runId:i` for agent turns). */
export class ChatMessageDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['system', 'user', 'assistant', 'tool'] }) role!: string;
  @ApiProperty({
    nullable: true,
    description: 'Text, or parts (text, image, file, reasoning)',
    oneOf: [{ type: 'string' }, MESSAGE_PARTS_SCHEMA],
  })
  content!: string | ContentPart[] | null;
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        arguments: { type: 'string' },
      },
    },
  })
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  @ApiPropertyOptional() toolCallId?: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) metadata?: object;
}

/** A tool call of a turn and what it returned. */
export class ToolCallDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'JSON text' }) arguments!: string;
  @ApiPropertyOptional({ description: 'Any JSON value' }) result?: unknown;
  @ApiPropertyOptional() error?: string;
}

/** Token counts of a turn. */
export class UsageDto {
  @ApiProperty() promptTokens!: number;
  @ApiProperty() completionTokens!: number;
  @ApiProperty() totalTokens!: number;
}

/** Long-term rows a turn flushed after its commit, and refused as stale. */
export class LongtermFlushDto {
  @ApiProperty() flushed!: number;
  @ApiProperty() refused!: number;
}

/** A committed turn. */
export class RunResultDto {
  @ApiProperty() runId!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ type: ChatMessageDto }) reply!: ChatMessageDto;
  @ApiProperty({ type: [ChatMessageDto] }) messages!: ChatMessageDto[];
  @ApiProperty({ type: [ToolCallDto] }) toolCalls!: ToolCallDto[];
  @ApiProperty({ type: UsageDto }) usage!: UsageDto;
  @ApiProperty({ description: "The conversation's version after the commit" }) version!: number;
  @ApiProperty({ type: LongtermFlushDto }) longterm!: LongtermFlushDto;
}

/** A run's error: its class name and message. */
export class RunErrorDto {
  @ApiProperty() name!: string;
  @ApiProperty() message!: string;
}

/** `GET /runs/:runId`. */
export class RunRecordDto {
  @ApiProperty() runId!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed'] }) status!: string;
  @ApiPropertyOptional({ type: RunResultDto }) result?: RunResultDto;
  @ApiPropertyOptional({ type: RunErrorDto }) error?: RunErrorDto;
  @ApiPropertyOptional({ description: 'Attempts started (queued retries count)' })
  attempts?: number;
  @ApiProperty({ description: 'epoch ms' }) createdAt!: number;
  @ApiProperty({ description: 'epoch ms' }) updatedAt!: number;
}

/** 202 of a queued turn (or of a repeated Idempotency-Key whose run is not finished). */
export class AcceptedRunDto {
  @ApiProperty() runId!: string;
  @ApiProperty({ enum: ['queued', 'running', 'failed'] }) status!: string;
}

/** `GET /conversations/:conversationId/messages`. */
export class MessagesPageDto {
  @ApiProperty() conversationId!: string;
  @ApiProperty({ description: 'The full count of stored messages' }) version!: number;
  @ApiProperty({ type: [ChatMessageDto] }) messages!: ChatMessageDto[];
  @ApiPropertyOptional({
    description: 'The position to pass as `before` for the previous page; absent on the first page',
  })
  before?: number;
}

/** A long-term record. */
export class MemoryRecordDto {
  @ApiProperty() entityId!: string;
  @ApiProperty() key!: string;
  @ApiProperty({ description: 'Any JSON value' }) value!: unknown;
  @ApiProperty() seq!: number;
  @ApiProperty({ description: 'epoch ms' }) updatedAt!: number;
  @ApiPropertyOptional({ description: 'epoch ms' }) expiresAt?: number;
}

/** `GET /entities/:entityId/memories`. */
export class MemoryRecordsDto {
  @ApiProperty({ type: [MemoryRecordDto] }) records!: MemoryRecordDto[];
  @ApiPropertyOptional({
    description: 'Present when more records may follow: pass it as `cursor` for the next page',
  })
  cursor?: string;
}

/** `PUT /entities/:entityId/memories/:key`. */
export class PutMemoryResultDto {
  @ApiProperty({ description: 'false when a newer seq is stored (the write was stale)' })
  applied!: boolean;
  @ApiProperty({ type: MemoryRecordDto, description: 'The record as stored now' })
  record!: MemoryRecordDto;
}

/** `DELETE /entities/:entityId/memories/:key`. */
export class AppliedDto {
  @ApiProperty() applied!: boolean;
}

/** One working-memory entry. */
export class WorkingMemoryEntryDto {
  @ApiProperty() key!: string;
  @ApiProperty({ description: 'Any JSON value' }) value!: unknown;
  @ApiProperty({ description: 'UTF-8 bytes of key and JSON value (what counts toward the cap)' })
  sizeBytes!: number;
}

/** `GET /conversations/:conversationId/working-memory`. */
export class WorkingMemoryDto {
  @ApiProperty() conversationId!: string;
  @ApiProperty() sizeBytes!: number;
  @ApiProperty({ type: [WorkingMemoryEntryDto], description: 'Least recently used first' })
  entries!: WorkingMemoryEntryDto[];
}

/** The body of every error. */
export class HttpErrorDto {
  @ApiProperty() statusCode!: number;
  @ApiProperty() error!: string;
  @ApiProperty() message!: string;
}
