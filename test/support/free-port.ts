import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port the kernel hands out as a connection's own (source) port. */
export function ephemeralRangeStart(): number {
  try {
    const start = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > 11_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range.
 *
 * Tests stop servers and start them again on the same port while clients keep reconnecting. A
 * port inside the ephemeral range can be taken in between: another connection may be given it as
 * its source port, or a client reconnecting to the dead server on loopback may be given that very
 * port and connect to itself (TCP simultaneous open). The server then cannot bind. Below the
 * range, only a listener can hold the port.
 *
 * @param below ports are chosen under this bound (a Redis Cluster node also needs `port + 10000`)
 */
export async function freePort(below = ephemeralRangeStart()): Promise<number> {
  // Each jest worker draws from ports of its own (every 8th, offset by its id): two files running
  // at once never pick the same port between its check and its bind. A second suite run on the
  // same machine at the same time takes other lanes with TEST_PORT_LANES_FROM (e.g. 4).
  const lane =
    (Number(process.env.JEST_WORKER_ID ?? 0) + Number(process.env.TEST_PORT_LANES_FROM ?? 0)) %
    LANES;
  const slots = Math.floor((below - 10_000) / LANES);
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const port = 10_000 + LANES * Math.floor(Math.random() * slots) + lane;
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port between 10000 and ${below}`);
}

/** How many jest workers draw ports apart from each other. */
const LANES = 8;

/** Whether 127.0.0.1:`port` can be listened on right now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
