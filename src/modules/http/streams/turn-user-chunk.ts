import type { ChatRequestDto } from '../dto/chat.dto.js';

/** The type of the chunk that opens a resumed stream with the turn's user message. */
export const TURN_USER_CHUNK_TYPE = 'data-turn-user';

/**
 * The first chunk a resuming reader gets: the turn's user message as the client sent it (its text
 * and file parts), under the id it is stored with (`runId:0`; the client's own id as `clientId`), as
 * a transient data chunk. A turn commits atomically, so a page
 * reloaded mid-reply has not got this message in the stored history; `useChat`'s `onData` hands
 * it over (transient chunks are not added to the assistant message) to show it above the reply.
 */
export function turnUserChunk(body: ChatRequestDto, runId: string): string {
  const newest = body.message ?? body.messages?.at(-1);
  const parts = (Array.isArray(newest?.parts) ? newest.parts : []).flatMap(
    (part): Array<Record<string, string>> => {
      if (part?.type === 'text' && typeof part.text === 'string')
        return [{ type: 'text', text: part.text }];
      if (part?.type === 'file' && typeof part.url === 'string')
        return [
          {
            type: 'file',
            url: part.url,
            mediaType: typeof part.mediaType === 'string' ? part.mediaType : '',
            ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
          },
        ];
      return [];
    },
  );
  const clientId = typeof newest?.id === 'string' && newest.id !== '' ? newest.id : undefined;
  return JSON.stringify({
    type: TURN_USER_CHUNK_TYPE,
    transient: true,
    data: { id: `${runId}:0`, ...(clientId ? { clientId } : {}), role: 'user', parts },
  });
}
