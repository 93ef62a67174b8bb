import type { TextSearchHit } from '../interfaces/longterm-store.interface.js';
import { indexedMessageOf } from './message-index.js';

/** Default share of its neighbours' full-text scores a message hit gains (`recall({ neighbours })`). */
export const DEFAULT_NEIGHBOUR_WEIGHT = 0.3;

/**
 * Reorders a full-text list of message hits by their conversation's neighbourhood: each hit ranks by
 * its own score plus `weight` × the scores of the messages just before and just after it in its
 * conversation, when those are hits of the same list — so a run of turns about the question ranks
 * above a lone mention, and the answer beside the best-matching turn moves up. The list is the
 * one already read (no further reads); each hit keeps its own score. Ties keep the list's order.
 */
export function rerankByNeighbours(hits: TextSearchHit[], weight: number): TextSearchHit[] {
  if (weight === 0 || hits.length < 2) return hits;
  const places = hits.map((hit) => {
    const message = indexedMessageOf(hit.record.value);
    return message && { conversationId: message.conversationId, position: message.position };
  });
  const scoreAt = new Map<string, number>();
  places.forEach((place, i) => {
    if (place) scoreAt.set(placeKey(place.conversationId, place.position), hits[i]!.score);
  });
  const ranked = hits.map((hit, i) => {
    const place = places[i];
    const around = place
      ? (scoreAt.get(placeKey(place.conversationId, place.position - 1)) ?? 0) +
        (scoreAt.get(placeKey(place.conversationId, place.position + 1)) ?? 0)
      : 0;
    return { hit, order: i, boosted: hit.score + weight * around };
  });
  ranked.sort((a, b) => b.boosted - a.boosted || a.order - b.order);
  return ranked.map(({ hit }) => hit);
}

function placeKey(conversationId: string, position: number): string {
  return `${position}\u0000${conversationId}`;
}
