import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { openLongtermBackend } from '../../src/modules/longterm/longterm-backend.factory.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import type { LongtermMemoryModuleOptions } from '../../src/modules/longterm/longterm.options.js';
import { resolveEmbedder } from '../../src/modules/longterm/recall/embedding/resolve-embedder.js';

const URIS: Record<string, () => string> = {
  memory: () => 'memory://',
  sqlite: () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-recall-')), 'recall.sqlite')}`,
  postgres: () => process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  mysql: () => process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redis: () => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** A long-term service on `backend` (memory, sqlite, postgres, mysql, redis), without its sweep. */
export async function openBenchLongterm(
  backend: string,
  extra: Partial<LongtermMemoryModuleOptions> = {},
): Promise<{ service: LongtermMemoryService; close(): Promise<void> }> {
  const uri = URIS[backend];
  if (!uri) throw new Error(`BENCH_BACKEND must be one of ${Object.keys(URIS).join(', ')}`);
  const registry = new ConnectionRegistry();
  const options: LongtermMemoryModuleOptions = { uri: uri(), sweep: false, ...extra };
  const opened = await openLongtermBackend(options, registry);
  const embedder = await resolveEmbedder(options.recall?.embedder);
  const service = new LongtermMemoryService(opened, options, undefined, embedder);
  return {
    service,
    close: async () => {
      await service.onApplicationShutdown();
      await registry.onApplicationShutdown();
    },
  };
}
