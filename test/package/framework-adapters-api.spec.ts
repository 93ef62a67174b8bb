import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { exportedNames } from '../support/exported-names.js';

/**
 * The framework adapters' entry points (`nest-agent-memory/langchain`, `/langgraph`,
 * `/openai-agents`, `/mcp`), pinned like the root: each export is semver surface.
 */
const ADAPTERS: Record<string, string[]> = {
  langchain: [
    'AgentMemoryChatMessageHistory',
    'LANGCHAIN_METADATA_KEY',
    'toChatMessage',
    'toLangchainMessage',
  ],
  langgraph: [
    'AgentMemoryCheckpointSaver',
    'AgentMemoryStore',
    'AgentMemoryStoreOptions',
    'ChannelBlob',
    'CheckpointCursor',
    'CheckpointQuery',
    'CheckpointRow',
    'CheckpointRows',
    'CheckpointSaverOptions',
    'LangGraphModule',
    'LangGraphModuleExtras',
    'LangGraphModuleOptions',
    'MAX_CHECKPOINT_KEY_BYTES',
    'OpenCheckpointSaverOptions',
    'SerializedValue',
    'WriteRow',
    'openCheckpointSaver',
  ],
  'openai-agents': [
    'ChatMemorySession',
    'ChatMemorySessionOptions',
    'OPENAI_AGENTS_METADATA_KEY',
    'SessionHistoryConflictError',
    'liveSessionMessages',
  ],
  mcp: [
    'AGENT_MEMORY_MCP_OPTIONS',
    'AgentMemoryMcpModule',
    'AgentMemoryMcpModuleExtras',
    'AgentMemoryMcpModuleOptions',
    'AgentMemoryMcpServerFactory',
    'MCP_MEMORY_TOOL_NAMES',
    'MCP_TENANT_RESOLVER',
  ],
};

describe.each(Object.entries(ADAPTERS))('the %s entry point', (name, pinned) => {
  it('exports exactly the pinned names', () => {
    const entry = fileURLToPath(new URL(`../../src/modules/${name}/index.ts`, import.meta.url));
    expect(exportedNames(entry)).toEqual([...pinned].sort());
  });
});
