import type { ChainableCommander } from 'ioredis';
import { RedisScript } from '../../connections/redis/redis-script.js';
import type { CheckpointRow, SerializedValue } from '../checkpoint-rows.js';

/**
 * Deletes a thread's keys: KEYS are its fixed keys (checkpoints, index, blobs, namespaces, write
 * keys); ARGV[1] is its per-namespace index key for the empty namespace, to which a namespace is
 * appended. Every key has the thread's hash tag.
 */
export const DELETE_THREAD = new RedisScript(`
local doomed = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}
for _, namespace in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  doomed[#doomed + 1] = ARGV[1] .. namespace
end
for _, key in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  doomed[#doomed + 1] = key
end
for i = 1, #doomed, 500 do
  redis.call('DEL', unpack(doomed, i, math.min(i + 499, #doomed)))
end
return #doomed
`);

/** A checkpoint as stored: parent id, checkpoint and metadata (type and base64 bytes). */
export interface StoredCheckpoint {
  p?: string;
  ct: string;
  c: string;
  mt: string;
  m: string;
}

/** A serialized value as stored: its type and its bytes in base64. */
export interface StoredValue {
  t: string;
  v: string;
}

/** A serialized value in its stored form. */
export function encode(value: SerializedValue): StoredValue {
  return { t: value.type, v: base64(value.bytes) };
}

/** A stored value back to its serialized form. */
export function decode(value: StoredValue): SerializedValue {
  return { type: value.t, bytes: Buffer.from(value.v, 'base64') };
}

/** Bytes as base64 (without copying the view's buffer). */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** A checkpoint row from its stored JSON. */
export function checkpointRow(
  threadId: string,
  namespace: string,
  checkpointId: string,
  text: string,
): CheckpointRow {
  const stored = JSON.parse(text) as StoredCheckpoint;
  return {
    threadId,
    namespace,
    checkpointId,
    ...(stored.p === undefined ? {} : { parentId: stored.p }),
    checkpoint: { type: stored.ct, bytes: Buffer.from(stored.c, 'base64') },
    metadata: { type: stored.mt, bytes: Buffer.from(stored.m, 'base64') },
  };
}

/** The lowest of the bounds given (by code point), or `undefined` if none is. */
export function lowest(bounds: Array<string | undefined>): string | undefined {
  return bounds.filter((bound): bound is string => bound !== undefined).sort(compareBytes)[0];
}

/** Compares two strings by their UTF-8 bytes. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Runs a `MULTI` and throws its first error. */
export async function exec(multi: ChainableCommander): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([error]) => error);
  if (failed) throw failed[0]!;
}
