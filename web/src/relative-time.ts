/**
 * When something happened, said the way people say it: "just now", "5 min ago", "3 h ago",
 * "yesterday", else the date (with the year when it is not this year's).
 */
export function relativeTime(epochMs: number, now = Date.now()): string {
  const seconds = Math.round((now - epochMs) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  const then = new Date(epochMs);
  const today = new Date(now);
  const days = Math.round(
    (new Date(today.toDateString()).getTime() - new Date(then.toDateString()).getTime()) /
      86_400_000,
  );
  if (days === 0) return `${Math.floor(seconds / 3600)} h ago`;
  if (days === 1) return 'yesterday';
  return then.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(then.getFullYear() === today.getFullYear() ? {} : { year: 'numeric' }),
  });
}

/**
 * An id cut to its first 8 characters and "…" when longer than `max`, keeping a short last part
 * after `:` (a message id `runId:3` stays told apart from its turn's others: `40e471c2…:3`).
 */
export function shortId(id: string, max = 12): string {
  if (id.length <= max) return id;
  const colon = id.lastIndexOf(':');
  const tail = colon > 8 && id.length - colon <= 5 ? id.slice(colon) : '';
  return `${id.slice(0, 8)}…${tail}`;
}
