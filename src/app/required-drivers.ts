import { MissingDriverError } from 'nest-agent-memory';
import type { AllConfig } from '../config/validate-env.js';

/** The packages each store backend loads. */
const SQL_DRIVERS: Record<string, string[]> = {
  sqlite: ['typeorm', 'better-sqlite3'],
  postgres: ['typeorm', 'pg'],
  mysql: ['typeorm', 'mysql2'],
};

/** The packages each HTTP platform loads (its adapter, and what serves the page's assets). */
const PLATFORM_PACKAGES: Record<AllConfig['http']['adapter'], string[]> = {
  fastify: ['@nestjs/platform-fastify', '@fastify/static'],
  express: ['@nestjs/platform-express'],
};

/** The optional packages the configuration needs, each with what needs it. */
export function requiredDrivers(config: AllConfig): Map<string, string> {
  const needed = new Map<string, string>();
  const add = (packages: readonly string[], by: string) => {
    for (const name of packages) if (!needed.has(name)) needed.set(name, by);
  };
  const chat = config.chatMemory.backend;
  add(chat === 'redis' ? ['ioredis'] : (SQL_DRIVERS[chat] ?? []), `CHAT_MEMORY_BACKEND=${chat}`);
  if ('uri' in config.longterm && config.longterm.uri)
    add(driversOfUri(config.longterm.uri), 'LONGTERM_MEMORY_URI');
  if (config.redis.url) add(['ioredis'], 'REDIS_URL');
  const platform = config.http.adapter;
  add(PLATFORM_PACKAGES[platform], `HTTP_ADAPTER=${platform}`);
  if (config.agent.queue.driver === 'bull') {
    add(['bull', '@nestjs/bull', 'ioredis'], 'AGENT_QUEUE=bull');
    add([`@bull-board/${platform}`], `AGENT_QUEUE=bull on HTTP_ADAPTER=${platform}`);
  }
  const provider = (config.llm.options as { provider?: string }).provider;
  if (provider && provider !== 'echo') add([`@ai-sdk/${provider}`], `LLM_PROVIDER=${provider}`);
  const memory = config.agent.memory;
  if (typeof memory === 'object' && 'maxTokens' in memory && memory.maxTokens > 0)
    add(['gpt-tokenizer'], 'AGENT_MEMORY_MAX_TOKENS');
  return needed;
}

function driversOfUri(uri: string): string[] {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase() ?? '';
  if (scheme === 'sqlite') return SQL_DRIVERS.sqlite!;
  if (scheme === 'postgres' || scheme === 'postgresql') return SQL_DRIVERS.postgres!;
  if (scheme === 'mysql' || scheme === 'mariadb') return SQL_DRIVERS.mysql!;
  if (scheme.startsWith('redis')) return ['ioredis'];
  return [];
}

/**
 * Checks, before any module starts, that every optional package the configuration needs can be
 * loaded, and reports all the missing ones at once (not one per start).
 *
 * @param resolve finds a package (default: `import.meta.resolve`); throws when it is not installed
 */
export function assertDriversInstalled(
  config: AllConfig,
  resolve: (name: string) => unknown = (name) => import.meta.resolve(name),
): void {
  const missing: string[] = [];
  const by = new Set<string>();
  for (const [name, neededBy] of requiredDrivers(config)) {
    try {
      resolve(name);
    } catch {
      missing.push(name);
      by.add(neededBy);
    }
  }
  if (missing.length)
    throw new MissingDriverError(missing, `The configuration (${[...by].join(', ')})`);
}
