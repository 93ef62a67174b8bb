import { BadRequestException } from '@nestjs/common';
import {
  type ContentPart,
  mediaPart,
  parseDataUrl,
} from '../../../common/messages/content-parts.js';
import type { ChatRequestDto, UiMessageInput } from '../dto/chat.dto.js';

/**
 * The content of the request's newest message, which must be a user message with text or file
 * parts: its text when that is all it holds, else parts (a `data:` URL becomes inline `data`, an
 * `image/*` file an image part). The parts are checked in full when the turn validates its message.
 */
export function newestUserContent(body: ChatRequestDto): string | ContentPart[] {
  if (body.trigger !== undefined && body.trigger !== 'submit-message')
    throw new BadRequestException(
      `trigger ${JSON.stringify(body.trigger)} is not supported: the server owns the history, so only new user messages are accepted`,
    );
  const newest = body.message ?? body.messages?.at(-1);
  const parts = Array.isArray(newest?.parts) ? newest.parts.flatMap(toContentPart) : [];
  if (newest?.role !== 'user' || parts.length === 0)
    throw new BadRequestException(
      'The newest message must be a user message with text or file parts',
    );
  if (parts.every((part) => part.type === 'text'))
    return parts.map((part) => (part as { text: string }).text).join('');
  return parts;
}

type UiPart = NonNullable<UiMessageInput['parts']>[number];

function toContentPart(part: UiPart): ContentPart[] {
  if (part?.type === 'text' && typeof part.text === 'string')
    return part.text === '' ? [] : [{ type: 'text', text: part.text }];
  if (part?.type !== 'file' || typeof part.url !== 'string') return [];
  const inline = parseDataUrl(part.url);
  const mediaType = inline?.mediaType || (typeof part.mediaType === 'string' ? part.mediaType : '');
  const filename = typeof part.filename === 'string' ? part.filename : undefined;
  return [mediaPart(inline ? { data: inline.data } : { url: part.url }, mediaType, filename)];
}
