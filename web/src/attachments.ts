import type { FileUIPart } from 'ai';

/** The longest side of an attached image after scaling, in pixels (lowered if still too big). */
const MAX_SIDE = 1536;
/** Formats every model reads; others (HEIC, BMP, SVG, …) are re-encoded as JPEG. */
const SENT_AS_IS = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** An image of a sent-as-is format up to this size goes unchanged. */
const SEND_AS_IS_BYTES = 256 * 1024;
/** The most one image may take as a `data:` URL (characters), once encoded. */
const MAX_IMAGE_CHARS = 400_000;
/** The most all of a message's images may take together: the server's body limit is 1 MiB. */
export const MAX_ATTACHED_CHARS = 900_000;

/**
 * An image the user picked, as a `useChat` file part (a `data:` URL): sent as it is when small and
 * of a format every model reads, else scaled to at most {@link MAX_SIDE} px (less if need be) and
 * re-encoded as JPEG, so a phone photo fits the server's body limit and costs the model fewer tokens.
 */
export async function imageToFilePart(file: File): Promise<FileUIPart> {
  if (!file.type.startsWith('image/')) throw new Error(`${file.name} is not an image`);
  if (SENT_AS_IS.has(file.type) && file.size <= SEND_AS_IS_BYTES)
    return { type: 'file', mediaType: file.type, filename: file.name, url: await dataUrlOf(file) };
  const bitmap = await createImageBitmap(file);
  try {
    for (let side = MAX_SIDE; ; side = Math.round(side * 0.75)) {
      const url = jpegOf(bitmap, side);
      if (url.length <= MAX_IMAGE_CHARS || side < 256)
        return {
          type: 'file',
          mediaType: 'image/jpeg',
          filename: file.name.replace(/\.[^.]*$/, '') + '.jpg',
          url,
        };
    }
  } finally {
    bitmap.close();
  }
}

function jpegOf(bitmap: ImageBitmap, maxSide: number): string {
  const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/jpeg', 0.85);
}

function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}
