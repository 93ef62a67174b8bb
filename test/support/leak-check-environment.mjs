import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import NodeEnvironment from 'jest-environment-node';

/**
 * What a test file may not leave behind when it ends: servers, sockets, child processes and timers
 * it opened. Kinds of `process.getActiveResourcesInfo()`. Not pipes: a child's output pipe may stay
 * open a while after the child exits (a helper it started, such as tsx's esbuild service, still
 * holds it), which under load outlasts any grace period; the child itself is watched.
 */
const WATCHED = new Set(['TCPServerWrap', 'TCPSocketWrap', 'ProcessWrap', 'Timeout', 'UDPWrap']);
/**
 * How long a file's handles may take to close once its last hook ran (socket close events);
 * `testEnvironmentOptions.leakGraceMs` sets another.
 */
const GRACE_MS = 10_000;

function counts() {
  const found = new Map();
  for (const kind of process.getActiveResourcesInfo())
    if (WATCHED.has(kind)) found.set(kind, (found.get(kind) ?? 0) + 1);
  return found;
}

function leaks(before) {
  const now = counts();
  return [...now]
    .filter(([kind, count]) => count > (before.get(kind) ?? 0))
    .map(([kind, count]) => `${kind} ×${count - (before.get(kind) ?? 0)}`);
}

/** A handle named with what tells whose it is (a socket's ends, a child's command). */
function describeHandle(handle) {
  const name = handle?.constructor?.name ?? typeof handle;
  if (name === 'ChildProcess')
    return `child process ${handle.pid} (${handle.spawnargs?.join(' ').slice(0, 120)})`;
  if ('remotePort' in handle)
    return handle.remotePort === undefined
      ? `pipe (fd ${handle._handle?.fd ?? '?'})`
      : `socket ${handle.localPort} → ${handle.remoteAddress}:${handle.remotePort}`;
  if (name === 'Server') return `server ${JSON.stringify(handle.address?.())}`;
  return name;
}

/** The open handles (not the process's own stdio), each described; `sockets`: sockets and children only. */
function describeHandles({ sockets = false } = {}) {
  return (process._getActiveHandles?.() ?? [])
    .filter(
      (handle) =>
        handle &&
        typeof handle === 'object' &&
        ![0, 1, 2].includes(handle._handle?.fd) &&
        !['WriteStream', 'ReadStream'].includes(handle.constructor?.name) &&
        (!sockets || 'remotePort' in handle || handle.constructor?.name === 'ChildProcess'),
    )
    .map(describeHandle);
}

// Jest ends a worker by a message, then (500 ms later) SIGTERM if it has not exited: something kept
// its event loop alive ("a worker process has failed to exit gracefully"). Say what, then exit as
// SIGTERM would have.
// First of the process's SIGTERM listeners (a test's app may have added its own), once per worker.
const SIGTERM_REPORT = Symbol.for('leak-check:sigterm-report');
if (!globalThis[SIGTERM_REPORT]) {
  globalThis[SIGTERM_REPORT] = true;
  process.prependOnceListener('SIGTERM', () => {
    process.stderr.write(
      `leak-check: jest worker ${process.pid} was still holding ${process.getActiveResourcesInfo().join(', ')} ` +
        `when it was told to exit: ${describeHandles().join('; ')}\n`,
    );
    process.exit(143);
  });
}

/**
 * Jest's Node environment, plus a check that the file left no handle open: when its last hook has
 * run, every server, socket, child process and timer it opened must be closed within 10 s, or
 * the file fails naming what is left (a client, timer or server that would otherwise emit into the
 * next file, or keep the worker alive). A file one of whose tests or hooks failed already fails:
 * its leaks are then written to stderr instead, so that jest still shows the failures (an error
 * thrown here replaces the file's results with it; a failed test often leaks what it did not get
 * to close). `TEST_LEAKS=report:<file>` lists leaks in the file instead of failing.
 */
export default class LeakCheckEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.graceMs = config.projectConfig.testEnvironmentOptions?.leakGraceMs ?? GRACE_MS;
  }

  async setup() {
    await super.setup();
    this.before = counts();
    this.failed = false;
  }

  /** Writes a line to the worker's stderr, which jest shows. */
  warn(message) {
    process.stderr.write(`leak-check: ${message}\n`);
  }

  /** Notes whether a test or hook of the file failed (jest-circus events). */
  handleTestEvent(event) {
    if (
      event.name === 'hook_failure' ||
      (event.name === 'test_done' && event.test.errors.length > 0)
    )
      this.failed = true;
  }

  async teardown() {
    const deadline = Date.now() + this.graceMs;
    let left = leaks(this.before);
    while (left.length > 0 && Date.now() < deadline) {
      await sleep(50);
      left = leaks(this.before);
    }
    await super.teardown();
    if (left.length === 0) return;
    left.push(...describeHandles({ sockets: true }));
    const mode = process.env.TEST_LEAKS ?? '';
    const message =
      `${this.testPath} left open handles after its last hook: ${left.join(', ')} ` +
      '(close every client, server, child process and timer it opened)';
    if (mode.startsWith('report:'))
      appendFileSync(mode.slice(7), `${JSON.stringify({ file: this.testPath, left })}\n`);
    else if (this.failed) this.warn(`${message}; the file failed`);
    else throw new Error(message);
  }
}
