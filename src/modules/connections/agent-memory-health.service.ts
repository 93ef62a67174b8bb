import { Inject, Injectable } from '@nestjs/common';
import { type ConnectionHealth, ConnectionRegistry } from './connection-registry.js';

/**
 * Readiness of every database and Redis connection the memory modules of this app hold: pings each
 * (`SELECT 1`, `PING`) and answers opaque labels (`postgres`, `redis-2`, …) with `healthy` and the
 * latency — safe to expose without auth; failures are detailed in the log only. Injectable anywhere
 * once a memory module is imported.
 */
@Injectable()
export class AgentMemoryHealthService {
  constructor(@Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry) {}

  /** One entry per open connection. */
  check(): Promise<ConnectionHealth[]> {
    return this.registry.checkHealth();
  }
}
