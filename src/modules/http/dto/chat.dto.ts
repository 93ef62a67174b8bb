import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { HTTP_ID_PATTERN } from '../tenancy/tenant-scope.js';

/** A message as the AI SDK sends it (`UIMessage`): text and file parts of user messages are read. */
export interface UiMessageInput {
  id?: string;
  role?: string;
  parts?: Array<{
    type?: string;
    text?: unknown;
    url?: unknown;
    mediaType?: unknown;
    filename?: unknown;
  }>;
}

/**
 * `POST /conversations/:conversationId/chat` body: what `useChat`'s `DefaultChatTransport` sends
 * (`{ id, messages, trigger, messageId }`), or only the newest message (`{ message }`, with the
 * transport's `prepareSendMessagesRequest`). The server owns the history: only the newest user
 * message is taken.
 */
export class ChatRequestDto {
  @ApiPropertyOptional({
    description: "The client's chat id (ignored: the route names the conversation)",
  })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({
    description:
      'UIMessages; only the last one is read, and it must be a user message with text or file parts (a file by http(s) URL or data: URL)',
    type: 'array',
    items: { type: 'object' },
  })
  @IsOptional()
  @IsArray()
  messages?: UiMessageInput[];

  @ApiPropertyOptional({
    description: 'The newest UIMessage alone (sent instead of `messages` by a trimmed transport)',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  message?: UiMessageInput;

  @ApiPropertyOptional({ description: "useChat's trigger (submit-message; regenerate is refused)" })
  @IsOptional()
  @IsString()
  trigger?: string;

  @ApiPropertyOptional({ description: "useChat's message id (ignored)" })
  @IsOptional()
  @IsString()
  messageId?: string;

  @ApiPropertyOptional({ pattern: HTTP_ID_PATTERN.source, description: 'The long-term entity' })
  @IsOptional()
  @Matches(HTTP_ID_PATTERN, {
    message: 'entityId must be 1–200 characters of letters, digits and _ - . : @',
  })
  entityId?: string;
}

/** The chat route's documented answer (an SSE body; described here for OpenAPI). */
export class UiMessageStreamDto {
  @ApiProperty({
    description:
      'SSE `data:` frames of UI message chunks (start, start-step, text-*, tool-*, finish-step, finish, error), then `[DONE]`; header `x-vercel-ai-ui-message-stream: v1`',
  })
  stream!: string;
}
