import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type Server, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface LeakCheck {
  setup(): Promise<void>;
  handleTestEvent(event: unknown): void;
  warn(message: string): void;
  teardown(): Promise<void>;
}
type LeakCheckClass = new (config: unknown, context: unknown) => LeakCheck;

const { default: LeakCheckEnvironment } = (await import(
  `${ROOT}test/support/leak-check-environment.mjs`
)) as { default: LeakCheckClass };

/** The suite's test environment for a file `leaky.spec.ts`, giving handles `graceMs` to close. */
async function environment(graceMs = 100): Promise<LeakCheck> {
  const env = new LeakCheckEnvironment(
    {
      globalConfig: {},
      projectConfig: { testEnvironmentOptions: { leakGraceMs: graceMs }, globals: {} },
    },
    { testPath: 'leaky.spec.ts', console, docblockPragmas: {} },
  );
  await env.setup();
  return env;
}

// A server: jest's own timers come and go in this process, a listening socket only when a test
// opens one.
const servers: Server[] = [];
const listen = async () => {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
};
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
  // 'close' is emitted before libuv has let go of the handle: wait until it has (bounded).
  for (let i = 0; i < 100 && process.getActiveResourcesInfo().includes('TCPServerWrap'); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
});

describe('the leak check of the suite', () => {
  it('passes a file that closed what it opened, within the grace', async () => {
    const env = await environment(10_000);
    const server = await listen();
    setImmediate(() => server.close());
    await expect(env.teardown()).resolves.toBeUndefined();
  });

  it('fails a passing file that left a server open, naming it', async () => {
    const env = await environment();
    await listen();
    env.handleTestEvent({ name: 'test_done', test: { errors: [] } });
    await expect(env.teardown()).rejects.toThrow(
      /leaky\.spec\.ts left open handles after its last hook: TCPServerWrap ×1/,
    );
  });

  it.each([
    ['a test', { name: 'test_done', test: { errors: [new Error('expected 2')] } }],
    ['a hook', { name: 'hook_failure' }],
  ])(
    'keeps the results of a file where %s failed, and writes its leaks to stderr',
    async (_, event) => {
      const env = await environment();
      const warn = jest.spyOn(env, 'warn').mockImplementation(() => undefined);
      await listen();
      env.handleTestEvent(event);
      await expect(env.teardown()).resolves.toBeUndefined();
      expect(warn.mock.calls).toEqual([
        [
          expect.stringMatching(
            /^leaky\.spec\.ts left open handles after its last hook: TCPServerWrap ×1\b.*; the file failed$/,
          ),
        ],
      ]);
    },
  );
});
