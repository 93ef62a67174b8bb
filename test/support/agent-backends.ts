import { join } from 'node:path';
import type { AgentRunsOptions } from '../../src/modules/agent/agent.options.js';
import type { ChatMemoryModuleOptions } from '../../src/modules/chat-memory/chat-memory.options.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from './test-databases.js';

/**
 * An agent's chat store and run store on one backend each, by name: SQLite (one file, named after
 * `label`), PostgreSQL, Redis (key prefixes named after `label`).
 */
export function agentBackends(
  label: string,
): Array<[string, ChatMemoryModuleOptions, AgentRunsOptions]> {
  const path = join(tempDir(), `${label}.sqlite`);
  return [
    ['sqlite', { backend: 'sqlite', path }, { backend: 'sqlite', path }],
    [
      'postgres',
      { backend: 'postgres', url: TEST_POSTGRES_URL },
      { backend: 'postgres', url: TEST_POSTGRES_URL },
    ],
    [
      'redis',
      { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `test:${label}:` },
      { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `test:${label}-runs:` },
    ],
  ];
}

/** A `lookup` tool that counts its calls in `counter` and answers `about <q>`. */
export function countingTool(counter: { calls: number }): KernelToolDefinition {
  return {
    name: 'lookup',
    description: 'Looks something up',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    handler: ({ q }) => {
      counter.calls += 1;
      return { answer: `about ${String(q)}` };
    },
  };
}
