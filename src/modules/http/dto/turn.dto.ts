import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import { HTTP_ID_PATTERN } from '../tenancy/tenant-scope.js';

/** `POST /conversations/:conversationId/turns` body. */
export class TurnRequestDto {
  @ApiProperty({ description: "The user's message", example: 'My name is Ada.' })
  @IsString()
  @IsNotEmpty()
  message!: string;

  @ApiPropertyOptional({
    description: 'The entity whose long-term memory the turn uses (memory_* tools)',
    pattern: HTTP_ID_PATTERN.source,
    example: 'user-42',
  })
  @IsOptional()
  @Matches(HTTP_ID_PATTERN, {
    message: 'entityId must be 1–200 characters of letters, digits and _ - . : @',
  })
  entityId?: string;
}

/** `POST /conversations/:conversationId/turns` query. */
export class TurnQueryDto {
  @ApiPropertyOptional({ description: 'Queue the turn and answer 202 { runId } at once' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    value === 'true' ? true : value === 'false' ? false : value,
  )
  @IsBoolean({ message: 'async must be true or false' })
  async?: boolean;
}
