import type { DataSource } from 'typeorm';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';

/** Room left for the statement text, the other parameters and the protocol's framing. */
const HEADROOM_BYTES = 4 * 1024;

/**
 * The server's `max_allowed_packet`, read once, and the check every large MariaDB/MySQL write makes
 * before it sends anything: a request over the limit fails with `InvalidArgumentError` naming the
 * limit instead of being cut off by the server, which also breaks the pooled connection it was on
 * (the next, unrelated query on it then fails with `ECONNRESET`).
 */
export class MysqlPacketLimit {
  private limit?: Promise<number>;

  constructor(private readonly dataSource: DataSource) {}

  /** Throws `InvalidArgumentError` naming `argument` if `bytes` cannot go in one packet. */
  async assertFits(argument: string, bytes: number): Promise<void> {
    const limit = await this.maxBytes();
    if (bytes > limit)
      throw new InvalidArgumentError(
        argument,
        `takes ${bytes} bytes, over the ${limit} bytes the server's max_allowed_packet leaves for it: split it, or raise max_allowed_packet`,
      );
  }

  private maxBytes(): Promise<number> {
    this.limit ??= this.dataSource
      .query('SELECT @@max_allowed_packet AS max_packet')
      .then(
        (rows: Array<{ max_packet: number | string }>) =>
          Number(rows[0]!.max_packet) - HEADROOM_BYTES,
      )
      .catch((error: unknown) => {
        this.limit = undefined;
        throw error;
      });
    return this.limit;
  }
}

/** Characters the text protocol escapes with a backslash (mysql2's `escape`). */
const ESCAPED = /[\0\b\t\n\r\x1a"'\\]/g;

/** The bytes a string takes inside a text-protocol statement: UTF-8, plus one per escape. */
export function escapedByteLength(text: string): number {
  return Buffer.byteLength(text) + (text.match(ESCAPED)?.length ?? 0) + 2;
}
