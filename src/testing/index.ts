/**
 * `nest-agent-memory/testing`: conformance suites that any backend, built-in or your own, can run.
 * Nothing here imports a test framework; pass your framework's `describe`, `it` and `expect` (Jest,
 * Vitest), or `nodeTestHooks(test)` for `node:test`.
 */
export {
  type ChatMemoryStoreCapabilities,
  type ChatMemoryStoreFactory,
  runChatMemoryStoreConformance,
} from './chat-memory-store.conformance.js';
export {
  type ConformanceHooks,
  type ConformanceMatchers,
  type InstanceUnderTest,
  rejectionOf,
} from './conformance-hooks.js';
export {
  type ConformanceClock,
  type LongtermStoreCapabilities,
  type LongtermStoreFactory,
  runLongtermStoreConformance,
} from './longterm-store.conformance.js';
export { assertExpect, type NodeTestFunctions, nodeTestHooks } from './node-test-hooks.js';
