/** The Redis Cluster slot of a key (CRC16 of its hash tag), from the package ioredis uses itself. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string): number;
}
