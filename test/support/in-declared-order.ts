import { afterAll, beforeAll, describe, it } from '@jest/globals';

type Fn = (...args: unknown[]) => unknown;
interface Hook {
  fn: Fn;
  timeout: number;
}
interface TestCase {
  kind: 'test';
  name: string;
  fn?: Fn;
  timeout?: number;
}
interface Block {
  kind: 'block';
  name: string;
  children: Array<TestCase | Block>;
  beforeAll: Hook[];
  afterAll: Hook[];
  beforeEach: Hook[];
  afterEach: Hook[];
}

/** The longest a collected test may take when it names no timeout of its own. */
const DEFAULT_TEST_TIMEOUT_MS = 60_000;
const GLOBALS = ['describe', 'it', 'test', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'];

/**
 * Runs a suite written for a test runner's globals (`describe`, `it`, `it.each`, hooks…) in the order
 * it declares its tests, whatever jest's `--randomize` says: LangGraph's checkpointer validation
 * suite, for one, writes rows in one test that later tests of its block read. `define` runs with
 * collecting globals; each top-level block then becomes one jest test that runs the block's tests in
 * order with their hooks as jest runs them (a block's `beforeAll`/`afterAll` around its tests —
 * `afterAll` even when `beforeAll` failed —, every enclosing block's `beforeEach`/`afterEach` around
 * each test, each hook with its own timeout) and fails listing every test that failed, with its
 * whole message. `beforeAll`/`afterAll` outside any block stay jest's own; `beforeEach`/`afterEach`
 * there, and callback-style (`done`) tests or hooks, are refused rather than run differently.
 */
export function inDeclaredOrder(
  define: (collecting: { describe: (name: string, body: () => void) => void }) => void,
): void {
  const root = block('');
  const saved = new Map(
    GLOBALS.map((name) => [name, (globalThis as Record<string, unknown>)[name]]),
  );
  const stack = [root];
  const current = () => stack.at(-1)!;
  const describeFn = (name: string, body: () => void) => {
    const child = block(name);
    current().children.push(child);
    stack.push(child);
    try {
      body();
    } finally {
      stack.pop();
    }
  };
  const itFn = (name: string, fn?: Fn, timeout?: number) => {
    if (fn && fn.length > 0)
      throw new Error(`a callback-style (done) test is not supported: ${name}`);
    current().children.push({
      kind: 'test',
      name,
      ...(fn ? { fn } : {}),
      ...(timeout ? { timeout } : {}),
    });
  };
  const each =
    (register: (name: string, fn: Fn, timeout?: number) => void) =>
    (table: readonly unknown[]) =>
    (name: string, fn: Fn, timeout?: number) => {
      for (const row of table) {
        const args = Array.isArray(row) ? row : [row];
        register(title(name, args), () => fn(...args), timeout);
      }
    };
  const itWithExtras = Object.assign(itFn, {
    each: each(itFn),
    skip: (name: string) => current().children.push({ kind: 'test', name }),
  });
  const hook =
    (kind: 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach') => (fn: Fn, timeout?: number) => {
      if (fn.length > 0) throw new Error(`a callback-style (done) ${kind} hook is not supported`);
      current()[kind].push({ fn, timeout: timeout ?? DEFAULT_TEST_TIMEOUT_MS });
    };
  Object.assign(globalThis, {
    describe: Object.assign(describeFn, {
      each: each((name, fn) => describeFn(name, fn as () => void)),
    }),
    it: itWithExtras,
    test: itWithExtras,
    beforeAll: hook('beforeAll'),
    afterAll: hook('afterAll'),
    beforeEach: hook('beforeEach'),
    afterEach: hook('afterEach'),
  });
  try {
    define({ describe: describeFn });
  } finally {
    for (const [name, value] of saved) (globalThis as Record<string, unknown>)[name] = value;
  }
  if (root.beforeEach.length > 0 || root.afterEach.length > 0)
    throw new Error(
      'beforeEach/afterEach outside any block are not supported: declare them in one',
    );
  for (const { fn, timeout } of root.beforeAll) beforeAll(fn as () => Promise<void>, timeout);
  for (const { fn, timeout } of root.afterAll) afterAll(fn as () => Promise<void>, timeout);
  for (const child of root.children) {
    if (child.kind === 'test') throw new Error(`a test outside any block: ${child.name}`);
    const count = countTests(child);
    const skipped = countTests(child, (test) => !test.fn);
    describe(child.name, () => {
      it(
        `runs its ${count} tests in their declared order (${skipped} skipped)`,
        async () => {
          const failures: string[] = [];
          await runBlock(child, [], [], failures);
          if (failures.length > 0)
            throw new Error(
              `${failures.length} of ${count - skipped} failed:\n\n${failures.join('\n\n')}`,
            );
        },
        30 * 60_000,
      );
    });
  }
}

function block(name: string): Block {
  return {
    kind: 'block',
    name,
    children: [],
    beforeAll: [],
    afterAll: [],
    beforeEach: [],
    afterEach: [],
  };
}

function countTests(node: Block, which: (test: TestCase) => boolean = () => true): number {
  return node.children.reduce(
    (sum, child) =>
      sum + (child.kind === 'test' ? (which(child) ? 1 : 0) : countTests(child, which)),
    0,
  );
}

/** A title with `%s`-style placeholders filled from the row, or `$name` from its object. */
function title(name: string, args: unknown[]): string {
  const [first] = args;
  if (name.includes('$') && typeof first === 'object' && first !== null)
    return name.replace(/\$([A-Za-z_]\w*)/g, (_, key: string) =>
      String((first as Record<string, unknown>)[key]),
    );
  let next = 0;
  return name.replace(/%[sdijp]/g, () => String(args[next++]));
}

async function runBlock(
  node: Block,
  path: string[],
  around: Block[],
  failures: string[],
): Promise<void> {
  const here = [...path, node.name];
  const enclosing = [...around, node];
  try {
    for (const hook of node.beforeAll) await withTimeout(hook.fn, hook.timeout);
  } catch (error) {
    // As jest does: the block's tests fail, and its afterAll hooks still run.
    const tests = countTests(node, (test) => Boolean(test.fn));
    failures.push(
      `${here.join(' › ')}: beforeAll failed (${tests} tests not run): ${message(error)}`,
    );
    await runAfterAll(node, here, failures);
    return;
  }
  for (const child of node.children) {
    if (child.kind === 'block') {
      await runBlock(child, here, enclosing, failures);
      continue;
    }
    if (!child.fn) continue; // skipped
    try {
      for (const outer of enclosing)
        for (const hook of outer.beforeEach) await withTimeout(hook.fn, hook.timeout);
      await withTimeout(child.fn, child.timeout ?? DEFAULT_TEST_TIMEOUT_MS);
    } catch (error) {
      failures.push(`${[...here, child.name].join(' › ')}: ${message(error)}`);
    } finally {
      for (const inner of [...enclosing].reverse())
        for (const hook of inner.afterEach)
          await withTimeout(hook.fn, hook.timeout).catch((error: unknown) =>
            failures.push(
              `${[...here, child.name].join(' › ')}: afterEach failed: ${message(error)}`,
            ),
          );
    }
  }
  await runAfterAll(node, here, failures);
}

async function runAfterAll(node: Block, here: string[], failures: string[]): Promise<void> {
  for (const hook of node.afterAll)
    await withTimeout(hook.fn, hook.timeout).catch((error: unknown) =>
      failures.push(`${here.join(' › ')}: afterAll failed: ${message(error)}`),
    );
}

async function withTimeout(fn: Fn, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(() => fn()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The whole message (an assertion's diff included), indented under its test's name. */
function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\n/g, '\n    ');
}
