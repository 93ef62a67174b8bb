import { randomBytes } from 'node:crypto';
import type { AgentRunRecord } from '../interfaces/agent-run.interface.js';

/** The random bytes of one revision token (12 characters of base64url). */
const REV_BYTES = 9;
/** Tokens drawn from the system's random source at once: one draw per 256 writes, not per write. */
const REVS_PER_DRAW = 256;
let revPool = Buffer.alloc(0);
let revOffset = 0;

/**
 * A fresh revision token: unique per write, so a compare-and-set tells its own write apart. Its
 * bytes are cut from a pool drawn 256 tokens at a time: one draw per token was a system call per
 * record write, about 20 µs on a turn's path.
 */
export function newRev(): string {
  if (revOffset + REV_BYTES > revPool.length) {
    revPool = randomBytes(REV_BYTES * REVS_PER_DRAW);
    revOffset = 0;
  }
  const rev = revPool.toString('base64url', revOffset, revOffset + REV_BYTES);
  revOffset += REV_BYTES;
  return rev;
}

/** An error as a run record keeps it: its name and message. */
export function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

/** Who holds a run while it is not settled, and until when. Never shown to callers. */
export interface RunLeaseFields {
  /** A random token of the holder (one process's execution of the run). */
  owner?: string;
  /** Until when the holder is presumed alive (ms since the epoch); renewed while it holds the run. */
  leaseUntil?: number;
  /** Unique per write, so a compare-and-set always tells its own write from an equal one. */
  rev?: string;
}

/** The record as stored: the public record and its lease. */
export type StoredRecord = AgentRunRecord & RunLeaseFields;

/** The record without its lease. */
export function publicRecord(record: StoredRecord): AgentRunRecord {
  const shown: StoredRecord = { ...record };
  delete shown.owner;
  delete shown.leaseUntil;
  delete shown.rev;
  return shown;
}

/** A status entry's JSON (`null`: none) with its record. */
export function parsed(json: string | null): { json: string; record: StoredRecord } | undefined {
  return json === null ? undefined : { json, record: JSON.parse(json) as StoredRecord };
}
