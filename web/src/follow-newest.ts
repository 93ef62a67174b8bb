import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** How close to the bottom (px) still counts as "at the newest message". */
const NEAR_BOTTOM = 48;

/** Pixels of content below the visible part of `element`. */
const belowView = (element: HTMLElement) =>
  element.scrollHeight - element.scrollTop - element.clientHeight;

/**
 * Keeps a scrolling list at its newest (bottom) content while the user is there: new text, a
 * loaded history or an image that grows the content scrolls it along. Scrolling up stops that
 * (`following` false, for a "Jump to newest" button); back at the bottom it follows again. Content
 * added above (earlier messages) keeps what the user was reading where it was.
 */
export function useFollowNewest() {
  const list = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);
  // Set before content is added above: the height to keep the view steady against.
  const anchor = useRef<{ height: number; top: number }>(undefined);
  // Where this hook last put the list. The browser fires `scroll` a frame after the user moved, so
  // new text arriving in between must not take that move for ours and snap back to the bottom.
  const placedAt = useRef(0);

  const toBottom = useCallback(() => {
    const element = list.current;
    if (!element) return;
    element.scrollTop = element.scrollHeight;
    placedAt.current = element.scrollTop;
  }, []);

  /** Follows new content, unless the user scrolled up since the list was last placed. */
  const followNewest = useCallback(() => {
    const element = list.current;
    if (!element || !follow.current) return;
    // Moved up by more than "near the bottom" allows, as the scroll event would have judged it.
    if (placedAt.current - element.scrollTop > NEAR_BOTTOM && belowView(element) > NEAR_BOTTOM) {
      follow.current = false;
      setFollowing(false);
      return;
    }
    toBottom();
  }, [toBottom]);

  useEffect(() => {
    const element = list.current;
    const inner = content.current;
    if (!element || !inner) return;
    const onScroll = () => {
      const near = belowView(element) <= NEAR_BOTTOM;
      follow.current = near;
      if (near) placedAt.current = element.scrollTop;
      setFollowing(near);
    };
    const resized = new ResizeObserver(() => {
      const kept = anchor.current;
      if (kept) {
        anchor.current = undefined;
        element.scrollTop = kept.top + (element.scrollHeight - kept.height);
        placedAt.current = element.scrollTop;
      } else followNewest();
    });
    resized.observe(inner);
    resized.observe(element);
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      resized.disconnect();
      element.removeEventListener('scroll', onScroll);
    };
  }, [followNewest]);

  // Each render that changed the messages: follow them when following.
  useLayoutEffect(() => {
    if (!anchor.current) followNewest();
  });

  return {
    list,
    content,
    following,
    /** Scrolls to the newest message and follows again. */
    jumpToNewest: () => {
      follow.current = true;
      setFollowing(true);
      toBottom();
    },
    /** Call before adding content above: the view stays on what the user reads. */
    keepPosition: () => {
      const element = list.current;
      if (element) anchor.current = { height: element.scrollHeight, top: element.scrollTop };
    },
  };
}
