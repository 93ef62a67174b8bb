import type { FileUIPart } from 'ai';

/** The longest side of an attached image after downscaling, in pixels. */
const MAX_SIDE = 1536;
/** Images up to this size are sent as they are; larger ones are re-encoded as JPEG. */
const SEND_AS_IS_BYTES = 256 * 1024;

/**
 * An image the user picked, as a `useChat` file part (a `data:` URL): sent as it is when small,
 * else scaled to at most {@link MAX_SIDE} px and re-encoded as JPEG, so a phone photo fits the
 * server's body limit (1 MiB by default) and costs the model fewer tokens.
 */
export async function imageToFilePart(file: File): Promise<FileUIPart> {
  if (!file.type.startsWith('image/')) throw new Error(`${file.name} is not an image`);
  if (file.size <= SEND_AS_IS_BYTES)
    return { type: 'file', mediaType: file.type, filename: file.name, url: await dataUrlOf(file) };
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return {
    type: 'file',
    mediaType: 'image/jpeg',
    filename: file.name.replace(/\.[^.]*$/, '') + '.jpg',
    url: canvas.toDataURL('image/jpeg', 0.85),
  };
}

function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}
