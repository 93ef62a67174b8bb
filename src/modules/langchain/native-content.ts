import type { ChatRole } from '../../common/messages/chat-message.interface.js';
import type { ContentPart } from '../../common/messages/content-parts.js';

/** A LangChain content block, as loosely as LangChain types it. */
type Block = Record<string, unknown>;

/**
 * The package's content for a LangChain message's content: a string stays a string; blocks become
 * text, image, file and reasoning parts where they have a counterpart (OpenAI-style `image_url`,
 * standard `image`/`file` blocks with a URL or base64 data, `reasoning`) and are left out
 * otherwise. System and tool messages hold text, so they keep only the text. `exact` says whether
 * nothing was left out or changed in form (then the stored native content is the content).
 */
export function nativeContent(
  role: ChatRole,
  content: unknown,
): { content: string | ContentPart[]; exact: boolean } {
  if (typeof content === 'string') return { content, exact: true };
  const blocks = Array.isArray(content) ? (content as Block[]) : [];
  const parts = blocks.flatMap((block) => partOf(block));
  if (role === 'system' || role === 'tool')
    return {
      content: parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
      exact: false,
    };
  return {
    content: role === 'user' ? parts.filter((part) => part.type !== 'reasoning') : parts,
    exact: false,
  };
}

/** LangChain content blocks for the package's content (for messages stored without a LangChain copy). */
export function langchainContent(content: string | ContentPart[] | null): string | Block[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part): Block => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'reasoning':
        return { type: 'reasoning', reasoning: part.text };
      case 'image':
        return {
          type: 'image_url',
          image_url: {
            url: part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data}`,
          },
        };
      case 'file':
        return {
          type: 'file',
          mimeType: part.mediaType,
          ...(part.url ? { url: part.url } : { data: part.data }),
          ...(part.filename ? { metadata: { filename: part.filename } } : {}),
        };
    }
  });
}

function partOf(block: Block): ContentPart[] {
  const type = block['type'];
  if (type === 'text' && typeof block['text'] === 'string')
    return [{ type: 'text', text: block['text'] }];
  if (type === 'reasoning' && typeof block['reasoning'] === 'string')
    return [{ type: 'reasoning', text: block['reasoning'] }];
  if (type === 'image_url') {
    const source = block['image_url'];
    const url =
      typeof source === 'string' ? source : (source as { url?: unknown } | undefined)?.url;
    return typeof url === 'string' ? [imageOf(url)] : [];
  }
  const mimeType = (block['mimeType'] ?? block['mime_type']) as string | undefined;
  if (
    (type === 'image' || type === 'file') &&
    (typeof block['url'] === 'string' || typeof block['data'] === 'string')
  ) {
    if (type === 'image')
      return [
        typeof block['url'] === 'string'
          ? imageOf(block['url'])
          : {
              type: 'image',
              data: block['data'] as string,
              ...(mimeType ? { mediaType: mimeType } : {}),
            },
      ];
    if (!mimeType) return [];
    return [
      {
        type: 'file',
        mediaType: mimeType,
        ...(typeof block['url'] === 'string'
          ? { url: block['url'] }
          : { data: block['data'] as string }),
      },
    ];
  }
  return [];
}

function imageOf(url: string): ContentPart {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { type: 'image', data: match[2]!, mediaType: match[1]! } : { type: 'image', url };
}
