import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from './test-databases.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Variables the example app reads; a boot clears them so the runner's environment cannot leak in. */
const APP_VARIABLES = [
  'AGENT_RECALL',
  'AGENT_RECALL_MESSAGES',
  'AGENT_TITLES',
  'AGENT_FORMATION',
  'AGENT_PROFILE',
  'RECALL_EMBEDDER',
  'RECALL_EMBEDDER_URL',
  'RECALL_EMBEDDER_MODEL',
  'RECALL_EMBEDDER_API_KEY',
  'RECALL_RERANK',
  'RECALL_WORD_VECTORS_FILE',
  'PORT',
  'HOST',
  'CHAT_MEMORY_BACKEND',
  'SQLITE_PATH',
  'DATABASE_URL',
  'REDIS_URL',
  'LONGTERM_MEMORY_URI',
  'LLM_PROVIDER',
  'LLM_MODEL',
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'AGENT_SYSTEM_PROMPT',
  'AGENT_MEMORY_WINDOW',
  'AGENT_MAX_TOOL_ITERATIONS',
  'AGENT_CONFLICT_POLICY',
  'AGENT_RUN_ATTEMPTS',
  'AGENT_RUN_LEASE_MS',
  'AGENT_QUEUE',
  'QUEUE_PREFIX',
  'QUEUE_LOCK_DURATION_MS',
  'QUEUE_STALLED_INTERVAL_MS',
  'API_DOCS',
  'LOG_FORMAT',
  'DB_MIGRATIONS_RUN',
  'API_KEYS',
  'HTTP_BODY_LIMIT',
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_TTL_MS',
  'RATE_LIMIT_TURNS_MAX',
  'AUTH_FAILURES_MAX',
  'LOG_LEVEL',
  'LLM_MAX_RETRIES',
  'LLM_TIMEOUT_MS',
  'SHUTDOWN_TIMEOUT_MS',
  'ADMIN_API_KEY',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_CAPTURE_CONTENT',
  'HTTP_HEADERS_TIMEOUT_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'ALLOWED_HOSTS',
  'TRUST_PROXY',
  'AGENT_MEMORY_MAX_TOKENS',
  'HTTP_SEND_TIMEOUT_MS',
  'HTTP_KEEP_ALIVE_TIMEOUT_MS',
  'HTTP_PAGE_BYTES',
  'WORKING_MEMORY_TENANT_MAX_BYTES',
  'WORKING_MEMORY_TENANT_MAX_CONVERSATIONS',
  'WORKING_MEMORY_MAX_VALUE_BYTES',
  'WORKING_MEMORY_CAPACITY_BYTES',
  'LONGTERM_MAX_VALUE_BYTES',
  'HTTP_ADAPTER',
];

/** The embedded default: SQLite files in a fresh directory, inline queue. */
export function embeddedEnv(dir = tempDir()): Record<string, string> {
  return { SQLITE_PATH: join(dir, 'app.sqlite') };
}

/** The production layout: Postgres for history, runs and long-term memory; Redis for the Bull queue. */
export function serverEnv(): Record<string, string> {
  return {
    CHAT_MEMORY_BACKEND: 'postgres',
    DATABASE_URL: TEST_POSTGRES_URL,
    LONGTERM_MEMORY_URI: TEST_POSTGRES_URL,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `e2e-${randomUUID().slice(0, 8)}`,
  };
}

/**
 * Every storage layout the app offers, by name: SQLite (the embedded default), PostgreSQL with the
 * Bull queue on Redis, MariaDB, and Redis (chat and long-term memory, inline queue).
 */
export const STORAGE_LAYOUTS: Array<[string, () => Record<string, string>]> = [
  ['SQLite', () => embeddedEnv()],
  ['PostgreSQL + Redis queue', () => serverEnv()],
  [
    'MariaDB',
    () => ({
      CHAT_MEMORY_BACKEND: 'mysql',
      DATABASE_URL: TEST_MYSQL_URL,
      LONGTERM_MEMORY_URI: TEST_MYSQL_URL,
    }),
  ],
  [
    'Redis',
    () => ({
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      LONGTERM_MEMORY_URI: TEST_REDIS_URL,
      AGENT_QUEUE: 'inline',
    }),
  ],
];

/**
 * The layouts a suite that also runs on Express (`TEST_HTTP_ADAPTER=express`) covers there: all of
 * them on the app's default platform; on Express the embedded one. What a platform does its own way
 * (routing, parsing, limits, streams) does not depend on storage, and what each layout does is
 * covered on the default platform, so Express × every layout would repeat that part.
 */
export function platformLayouts(): typeof STORAGE_LAYOUTS {
  return process.env.TEST_HTTP_ADAPTER ? STORAGE_LAYOUTS.slice(0, 1) : STORAGE_LAYOUTS;
}

/** How long a boot may take before the app counts as hung. */
const BOOT_BOUND_MS = 120_000;

/** A running example app: its base URL, and how to stop it. */
export interface RunningApp {
  url: string;
  /** The app's process id. */
  pid: number;
  output(): string;
  /** Sends a signal to the app's process. */
  kill(signal: NodeJS.Signals): void;
  /** How the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then waits for the exit. */
  close(): Promise<void>;
}

/**
 * Starts the built example app (`node dist/main.js`, what `npm start` runs; or another build of it)
 * on a free loopback port with exactly the given variables, and waits until `/health` answers.
 */
export async function bootApp(env: Record<string, string>, main = MAIN): Promise<RunningApp> {
  // Counted for the suite's CPU report (test/support/cpu-report.setup.ts).
  (globalThis as { appBoots?: number }).appBoots =
    ((globalThis as { appBoots?: number }).appBoots ?? 0) + 1;
  const port = await freePort();
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !APP_VARIABLES.includes(name)),
  );
  const child = spawn(process.execPath, [main], {
    env: {
      ...base,
      NODE_OPTIONS: '',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      AUTH_FAILURES_MAX: '0',
      // `TEST_HTTP_ADAPTER` runs the app's suites on another platform than its default.
      ...(process.env.TEST_HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.TEST_HTTP_ADAPTER } : {}),
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  // A start takes 2–3 s on a quiet machine and many times that on a busy one: the bound is only
  // there to stop a hung app (the test's own timeout usually ends the wait first).
  const deadline = Date.now() + BOOT_BOUND_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited at startup:\n${output}`);
    try {
      await fetch(`${url}/health`);
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the app did not answer within ${BOOT_BOUND_MS} ms:\n${output}`, {
          cause: error,
        });
      }
      await sleep(100);
    }
  }
  return {
    url,
    pid: child.pid!,
    output: () => output,
    kill: (signal) => child.kill(signal),
    exited,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Boots the built app for the enclosing `describe` (before its tests, stopped after them) and
 * returns a getter of the running app.
 */
export function appPerSuite(
  env: () => Record<string, string>,
  hooks: {
    beforeAll: (fn: () => Promise<void>) => void;
    afterAll: (fn: () => Promise<void>) => void;
  },
): () => RunningApp {
  let app: RunningApp | undefined;
  hooks.beforeAll(async () => {
    app = await bootApp(env());
  });
  hooks.afterAll(async () => {
    await app?.close();
  });
  return () => {
    if (!app) throw new Error('the app is not running (beforeAll failed?)');
    return app;
  };
}
