import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString } from 'class-validator';

/**
 * The body of `PATCH /conversations/:conversationId`. The title's length and the metadata's keys
 * and values are checked by the agent (`AgentService.updateConversation`), with the key at fault
 * named in the 400.
 */
export class UpdateConversationDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 1,
    maxLength: 200,
    description:
      'The title (1–200 characters after trimming, no control characters); `null` clears it (no default title comes back)',
  })
  @IsOptional()
  @IsString()
  title?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true, maxLength: 512 },
    maxProperties: 16,
    description:
      'Keys to set or, with `null`, delete; other keys stay. Keys: 1–64 characters of letters, digits, `_ . -`; values: at most 512 characters; at most 16 keys after the change',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, string | null>;
}
