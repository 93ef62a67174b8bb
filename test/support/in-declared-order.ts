import { afterAll, beforeAll, describe, it } from '@jest/globals';

type Fn = (...args: unknown[]) => unknown;
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
  beforeAll: Fn[];
  afterAll: Fn[];
  beforeEach: Fn[];
  afterEach: Fn[];
}

/** The longest a collected test may take when it names no timeout of its own. */
const DEFAULT_TEST_TIMEOUT_MS = 60_000;
const GLOBALS = ['describe', 'it', 'test', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'];

/**
 * Runs a suite written for a test runner's globals (`describe`, `it`, `it.each`, hooks…) in the order
 * it declares its tests, whatever jest's `--randomize` says: LangGraph's checkpointer validation
 * suite, for one, writes rows in one test that later tests of its block read. `define` runs with
 * collecting globals; each top-level block then becomes one jest test that runs the block's tests in
 * order with their hooks (a block's `beforeAll`/`afterAll` around its tests, every enclosing
 * block's `beforeEach`/`afterEach` around each test) and fails listing every test that failed.
 * Hooks declared outside any block stay jest's own.
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
  const itFn = (name: string, fn?: Fn, timeout?: number) =>
    current().children.push({
      kind: 'test',
      name,
      ...(fn ? { fn } : {}),
      ...(timeout ? { timeout } : {}),
    });
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
  const hook = (kind: 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach') => (fn: Fn) =>
    current()[kind].push(fn);
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
  for (const fn of root.beforeAll) beforeAll(fn as () => Promise<void>, DEFAULT_TEST_TIMEOUT_MS);
  for (const fn of root.afterAll) afterAll(fn as () => Promise<void>, DEFAULT_TEST_TIMEOUT_MS);
  for (const child of root.children) {
    if (child.kind === 'test') throw new Error(`a test outside any block: ${child.name}`);
    const count = countTests(child);
    describe(child.name, () => {
      it(
        `runs its ${count} tests in their declared order`,
        async () => {
          const failures: string[] = [];
          await runBlock(child, [], [], failures);
          if (failures.length > 0)
            throw new Error(`${failures.length} of ${count} failed:\n${failures.join('\n')}`);
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

function countTests(node: Block): number {
  return node.children.reduce(
    (sum, child) => sum + (child.kind === 'test' ? 1 : countTests(child)),
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
    for (const fn of node.beforeAll) await withTimeout(fn, DEFAULT_TEST_TIMEOUT_MS);
  } catch (error) {
    failures.push(`${here.join(' › ')}: beforeAll failed: ${message(error)}`);
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
        for (const fn of outer.beforeEach) await withTimeout(fn, DEFAULT_TEST_TIMEOUT_MS);
      await withTimeout(child.fn, child.timeout ?? DEFAULT_TEST_TIMEOUT_MS);
    } catch (error) {
      failures.push(`${[...here, child.name].join(' › ')}: ${message(error)}`);
    } finally {
      for (const inner of [...enclosing].reverse())
        for (const fn of inner.afterEach)
          await withTimeout(fn, DEFAULT_TEST_TIMEOUT_MS).catch((error: unknown) =>
            failures.push(
              `${[...here, child.name].join(' › ')}: afterEach failed: ${message(error)}`,
            ),
          );
    }
  }
  for (const fn of node.afterAll)
    await withTimeout(fn, DEFAULT_TEST_TIMEOUT_MS).catch((error: unknown) =>
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

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 6).join(' ');
}
