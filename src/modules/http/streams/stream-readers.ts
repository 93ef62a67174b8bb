import { HttpException, HttpStatus } from '@nestjs/common';

/** Most readers of one conversation's stream at a time, per instance. */
export const MAX_READERS_PER_CONVERSATION = 4;

/**
 * Counts the readers resuming each conversation's stream on this instance and refuses more than
 * {@link MAX_READERS_PER_CONVERSATION} (429): a reader holds a connection for the whole reply, so a
 * client that reconnects in a loop must not pile them up.
 */
export class StreamReaders {
  private readonly counts = new Map<string, number>();

  /** Runs `work` as a reader of `conversationKey`, or throws 429 when it already has too many. */
  async read(conversationKey: string, work: () => Promise<void>): Promise<void> {
    const count = this.counts.get(conversationKey) ?? 0;
    if (count >= MAX_READERS_PER_CONVERSATION)
      throw new HttpException(
        "Too many readers of this conversation's stream: close another tab, then try again",
        HttpStatus.TOO_MANY_REQUESTS,
      );
    this.counts.set(conversationKey, count + 1);
    try {
      await work();
    } finally {
      const left = (this.counts.get(conversationKey) ?? 1) - 1;
      if (left === 0) this.counts.delete(conversationKey);
      else this.counts.set(conversationKey, left);
    }
  }
}
