/**
 * Jest runs in ESM mode (NestJS 12 is ESM-only): ts-jest compiles with `useESM`, and the
 * `.js` suffixes of relative imports are mapped back to their `.ts` sources.
 * @type {import('jest').Config}
 */
export default {
  // Jest's Node environment, failing a file that leaves a handle open (see the file).
  testEnvironment: '<rootDir>/test/support/leak-check-environment.mjs',
  // TypeORM keeps its metadata on a global; keep it between test files.
  testEnvironmentOptions: { globalsCleanup: 'off' },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The README's examples import the package by name; tests resolve it to the sources.
    '^nest-agent-memory$': '<rootDir>/src/index.ts',
    '^nest-agent-memory/testing$': '<rootDir>/src/testing/index.ts',
    '^nest-agent-memory/http$': '<rootDir>/src/modules/http/index.ts',
    '^nest-agent-memory/ai-sdk$': '<rootDir>/src/modules/ai-sdk/index.ts',
    '^nest-agent-memory/langchain$': '<rootDir>/src/modules/langchain/index.ts',
    '^nest-agent-memory/langgraph$': '<rootDir>/src/modules/langgraph/index.ts',
    '^nest-agent-memory/openai-agents$': '<rootDir>/src/modules/openai-agents/index.ts',
    '^nest-agent-memory/mcp$': '<rootDir>/src/modules/mcp/index.ts',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: [
    '<rootDir>/examples/**/*.spec.ts',
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/test/**/*.spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  // Three files at a time: most of a file's time is the example app or a browser waiting on I/O,
  // so three keep two cores busy. Every file is isolated (its own app processes, databases or
  // random ids and key prefixes, free ports). Fixed rather than per core: each file may start apps
  // holding database connections. `--maxWorkers` / `-i` override it.
  maxWorkers: 3,
  // The longest files first (by test/support/test-durations.json), so none starts last.
  testSequencer: '<rootDir>/test/support/duration-sequencer.mjs',
  // Off unless TEST_CPU_REPORT names a file (see scripts/test-timings.mjs).
  setupFilesAfterEnv: ['<rootDir>/test/support/cpu-report.setup.ts'],
  testTimeout: 60_000,
  // How long jest waits for a worker to exit once the run is over before killing it ("A worker
  // process has failed to exit gracefully"). A worker exits on its own when nothing holds its event
  // loop (each file is checked for leaks), but a worker whose files loaded the whole package or a
  // TypeScript program (a heap of about 480 MB) took 1.0-1.7 s to exit on a loaded 2-core machine
  // against 0.2 s for the others: the process tearing its heap down, not a leak. Jest's 500 ms
  // default killed it at the end of every full run.
  workerGracefulExitTimeout: 5_000,
};
