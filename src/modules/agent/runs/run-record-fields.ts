import { randomBytes } from 'node:crypto';

/** A fresh revision token: unique per write, so a compare-and-set tells its own write apart. */
export function newRev(): string {
  return randomBytes(9).toString('base64url');
}

/** An error as a run record keeps it: its name and message. */
export function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}
