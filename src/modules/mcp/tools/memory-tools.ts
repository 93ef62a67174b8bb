import {
  deprecatedMemorySearchTool,
  memoryDeleteTool,
  memoryGetTool,
  memoryListTool,
  memorySaveTool,
} from './longterm-record.tools.js';
import {
  formedMemoryGetTool,
  formedMemoryListTool,
  formedMemorySearchTool,
  memoryCorrectTool,
  memoryForgetTool,
} from './formed-memory.tools.js';
import { profileGetTool, profilePatchTool } from './entity-profile.tools.js';
import {
  formationFailuresTool,
  formationJobsTool,
  formationRerunTool,
} from './formation-job.tools.js';
import type { MemoryTool } from './memory-tool.js';
import { memoryRecallTool } from './recall.tool.js';
import { workingMemoryGetTool, workingMemoryListTool } from './working-memory.tools.js';

/** Every tool the memory MCP server offers, in the order `tools/list` gives them. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  memorySaveTool,
  memoryGetTool,
  memoryDeleteTool,
  memoryListTool,
  memoryRecallTool,
  formedMemoryListTool,
  formedMemorySearchTool,
  formedMemoryGetTool,
  memoryCorrectTool,
  memoryForgetTool,
  formationJobsTool,
  formationFailuresTool,
  formationRerunTool,
  profileGetTool,
  profilePatchTool,
  workingMemoryListTool,
  workingMemoryGetTool,
  deprecatedMemorySearchTool,
];

/** The names of the memory MCP server's tools. */
export const MCP_MEMORY_TOOL_NAMES: readonly string[] = MEMORY_TOOLS.map((tool) => tool.name);
