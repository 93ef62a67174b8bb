import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { AppliedOperationDto, FormationFailuresQueryDto } from './formed-memory.dto.js';

/** Tokens a formation job's model calls used. */
export class FormationUsageDto {
  @ApiProperty() promptTokens!: number;
  @ApiProperty() completionTokens!: number;
}

/** What a formation job's profile patch did. */
export class FormationProfileOutcomeDto {
  @ApiProperty({ enum: ['applied', 'unchanged', 'refused'] }) status!: string;
  @ApiProperty({ type: [String], description: 'The members the patch named' }) members!: string[];
  @ApiPropertyOptional({ description: 'The version it made' }) version?: number;
  @ApiPropertyOptional({ description: 'Why it was refused' }) reason?: string;
}

/** A written formation job: its turn, its model, what each candidate became, its tokens. */
export class FormationJobDto {
  @ApiProperty({ description: 'The run id of its turn and the formation version' }) jobId!: string;
  @ApiProperty() runId!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ description: "The formation model's id" }) model!: string;
  @ApiProperty({ description: 'When its turn committed (epoch ms)' }) at!: number;
  @ApiProperty({ type: [AppliedOperationDto] }) operations!: AppliedOperationDto[];
  @ApiPropertyOptional({ type: FormationUsageDto }) usage?: FormationUsageDto;
  @ApiPropertyOptional({ type: FormationProfileOutcomeDto }) profile?: FormationProfileOutcomeDto;
}

/** A page of written formation jobs. */
export class FormationJobsDto {
  @ApiProperty({ type: [FormationJobDto] }) jobs!: FormationJobDto[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page' }) cursor?: string;
}

/** `GET /entities/:entityId/formation-jobs` query: a page, of one conversation's jobs or all. */
export class FormationJobsQueryDto extends FormationFailuresQueryDto {
  @ApiPropertyOptional({ description: "Only this conversation's jobs" })
  @IsOptional()
  @MaxLength(200)
  @IsString()
  conversationId?: string;
}
