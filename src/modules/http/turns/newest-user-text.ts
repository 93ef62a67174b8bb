import { BadRequestException } from '@nestjs/common';
import type { ChatRequestDto } from '../dto/chat.dto.js';

/** The text of the request's newest message, which must be a user message with text parts. */
export function newestUserText(body: ChatRequestDto): string {
  if (body.trigger !== undefined && body.trigger !== 'submit-message')
    throw new BadRequestException(
      `trigger ${JSON.stringify(body.trigger)} is not supported: the server owns the history, so only new user messages are accepted`,
    );
  const newest = body.message ?? body.messages?.at(-1);
  const text = Array.isArray(newest?.parts)
    ? newest.parts
        .filter((part) => part?.type === 'text' && typeof part.text === 'string')
        .map((part) => part.text as string)
        .join('')
    : '';
  if (newest?.role !== 'user' || text.length === 0)
    throw new BadRequestException('The newest message must be a user message with text parts');
  return text;
}
