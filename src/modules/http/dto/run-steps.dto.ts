import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { UsageDto } from './responses.dto.js';

/** A tool call as the model made it. */
export class StepToolCallDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'JSON text' }) arguments!: string;
}

/** A long-term row a tool step staged. */
export class StagedRowDto {
  @ApiProperty() key!: string;
  @ApiProperty({ description: 'Any JSON value' }) value!: unknown;
}

/** One step of a run: a model call (`type: model`) or a tool call (`type: tool`). */
export class RunStepDto {
  @ApiProperty({ enum: ['model', 'tool'] }) type!: 'model' | 'tool';
  @ApiProperty({ description: 'Attempt scope: 0, then one more per conflict retry' })
  scope!: number;
  @ApiProperty({ description: 'Model round of the tool loop (0 first)' }) round!: number;
  @ApiProperty({ description: 'A later attempt served this step from the run cache' })
  replayed!: boolean;
  @ApiPropertyOptional({ description: 'model: the text', nullable: true, type: String })
  content?: string | null;
  @ApiPropertyOptional({ type: [StepToolCallDto], description: 'model: the calls it made' })
  toolCalls?: StepToolCallDto[];
  @ApiPropertyOptional({ type: UsageDto }) usage?: UsageDto;
  @ApiPropertyOptional() finishReason?: string;
  @ApiPropertyOptional({ description: "tool: the call's position in its round" }) index?: number;
  @ApiPropertyOptional({ type: StepToolCallDto, description: 'tool: the call' })
  call?: StepToolCallDto;
  @ApiPropertyOptional({ description: 'tool: any JSON value' }) result?: unknown;
  @ApiPropertyOptional({ description: 'tool: the error it returned' }) error?: string;
  @ApiPropertyOptional({ type: [StagedRowDto], description: 'tool: long-term rows it staged' })
  staged?: StagedRowDto[];
}

/** The long-term flush of a run's committed turn. */
export class RunFlushDto {
  @ApiProperty() entityId!: string;
  @ApiProperty() seq!: number;
  @ApiProperty({ type: [String], description: 'Keys written' }) flushed!: string[];
  @ApiProperty({ type: [String], description: 'Keys refused as stale by the seq guard' })
  refused!: string[];
}

/** `GET /runs/:runId/steps`. */
export class RunStepsDto {
  @ApiProperty() runId!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ type: [RunStepDto] }) steps!: RunStepDto[];
  @ApiPropertyOptional({ type: RunFlushDto }) longterm?: RunFlushDto;
}
