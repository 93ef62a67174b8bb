import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';

/** `GET /conversations/:conversationId/chat/stream` query. */
export class ResumeQueryDto {
  @ApiPropertyOptional({
    minimum: 0,
    description:
      "The conversation's version in the history the client has loaded (`version` of GET …/messages). A turn whose commit is in it is not replayed; without it, only a turn still running is.",
  })
  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @IsInt()
  version?: number;
}
