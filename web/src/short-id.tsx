import { CopyButton } from './markdown.js';
import { shortId } from './relative-time.js';

/** An id shown short (8 characters and "…"), the whole id in its title, with a copy button. */
export function ShortId({ id }: { id: string }) {
  return (
    <span className="short-id">
      <code title={id}>{shortId(id)}</code>
      <CopyButton label={`Copy id ${id}`} text={() => id} />
    </span>
  );
}
