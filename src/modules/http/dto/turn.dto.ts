import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, Matches, ValidateBy } from 'class-validator';
import type { ContentPart } from '../../../common/messages/content-parts.js';
import { MESSAGE_PARTS_SCHEMA } from './content-parts.schema.js';
import { HTTP_ID_PATTERN } from '../tenancy/tenant-scope.js';
import { FastBody, hasOnlyKeys } from '../validation/fast-body.js';

/**
 * `POST /conversations/:conversationId/turns` body. Its fast check accepts a text message, with or
 * without a valid entity id; content parts, and anything else, get the full validation.
 */
@FastBody(
  (body) =>
    typeof body.message === 'string' &&
    body.message.length > 0 &&
    (body.entityId === undefined
      ? !('entityId' in body)
      : typeof body.entityId === 'string' && HTTP_ID_PATTERN.test(body.entityId)) &&
    hasOnlyKeys(body, ['message', 'entityId']),
)
export class TurnRequestDto {
  @ApiProperty({
    description: "The user's message: text, or parts (text, image, file)",
    example: 'My name is Ada.',
    oneOf: [{ type: 'string', minLength: 1 }, MESSAGE_PARTS_SCHEMA],
  })
  @IsMessageContent()
  message!: string | ContentPart[];

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

/** A non-empty string, or a non-empty array (its parts are checked in full with the message). */
function IsMessageContent(): PropertyDecorator {
  return ValidateBy({
    name: 'isMessageContent',
    validator: {
      validate: (value: unknown) =>
        (typeof value === 'string' && value.length > 0) ||
        (Array.isArray(value) && value.length > 0),
      defaultMessage: () => 'message must be a non-empty text or a non-empty array of parts',
    },
  });
}
