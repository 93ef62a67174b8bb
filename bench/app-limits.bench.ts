/**
 * The example app's bounds, measured over HTTP (`npm run bench:limits`; builds first). On the
 * embedded default (SQLite, process memory):
 * - **working-memory attack**: one client PUTs values of `BENCH_WM_VALUE_BYTES` (200 KB) into 400
 *   new conversations, the app running with a 192 MB heap; prints the answers and the app's RSS
 *   every 50 writes (`BENCH_MAIN` runs another build, e.g. an older one, for comparison);
 * - **turn cost against history length**: 500 turns of one conversation (a message of
 *   `BENCH_TURN_CHARS`, 4,000 characters; the offline echo model), under the default 6,000-token
 *   budget and with the whole history (`AGENT_MEMORY_MAX_TOKENS=0`); p50 of turns 11–20 (after
 *   warm-up) and 491–500.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const MAIN = process.env.BENCH_MAIN ?? fileURLToPath(new URL('../dist/main.js', import.meta.url));
const VALUE_BYTES = Number(process.env.BENCH_WM_VALUE_BYTES ?? 200_000);
const TURN_CHARS = Number(process.env.BENCH_TURN_CHARS ?? 4_000);

interface App {
  url: string;
  rssMb(): number;
  stop(): Promise<void>;
}

/** The built app on a loopback port with `env`, its heap capped at `heapMb`. */
async function start(env: Record<string, string>, heapMb?: number): Promise<App> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    process.execPath,
    [...(heapMb ? [`--max-old-space-size=${heapMb}`] : []), MAIN],
    {
      env: {
        PATH: process.env.PATH,
        SQLITE_PATH: join(mkdtempSync(join(tmpdir(), 'bench-app-')), 'app.sqlite'),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'error',
        RATE_LIMIT_MAX: '0',
        ...env,
      },
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (
      await fetch(`${url}/health`).then(
        () => true,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    url,
    rssMb: () => {
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Number(kb) / 1024 : NaN;
      } catch {
        return NaN; // the process is gone
      }
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function workingMemoryAttack(): Promise<void> {
  const app = await start({}, 192);
  const value = JSON.stringify({ value: 'w'.repeat(VALUE_BYTES) });
  console.log(
    `\nWorking-memory attack: PUTs of ${VALUE_BYTES} bytes into new conversations (192 MB heap)`,
  );
  console.log('| writes | RSS MB | answers so far |');
  console.log('|---:|---:|---|');
  const statuses = new Map<string, number>();
  console.log(`| 0 | ${app.rssMb().toFixed(0)} | |`);
  for (let i = 1; i <= 400; i += 1) {
    const status = await fetch(`${app.url}/conversations/attack-${i}/working-memory/blob`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: value,
    }).then(
      (response) => String(response.status),
      () => 'refused (app down)',
    );
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (i % 50 === 0) {
      const answers = [...statuses].map(([code, n]) => `${code}×${n}`).join(', ');
      console.log(`| ${i} | ${app.rssMb().toFixed(0)} | ${answers} |`);
    }
  }
  await app.stop();
}

async function turnCost(label: string, env: Record<string, string>): Promise<void> {
  const app = await start(env);
  const message = 'Tell me more about the plan we discussed. '
    .repeat(Math.ceil(TURN_CHARS / 42))
    .slice(0, TURN_CHARS);
  const samples: number[] = [];
  for (let i = 1; i <= 500; i += 1) {
    const started = performance.now();
    const response = await fetch(`${app.url}/conversations/long/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: `${i}: ${message}` }),
    });
    await response.text();
    samples.push(performance.now() - started);
  }
  const p50 = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(
    `| ${label} | ${p50(samples.slice(10, 20)).toFixed(1)} | ${p50(samples.slice(490)).toFixed(1)} | ${(p50(samples.slice(490)) / p50(samples.slice(10, 20))).toFixed(2)}× |`,
  );
  await app.stop();
}

const parts = process.argv.slice(2);
if (!parts.length || parts.includes('working-memory')) await workingMemoryAttack();
if (!parts.length || parts.includes('turns')) {
  console.log(
    `\nTurn latency against history length (POST /turns, ${TURN_CHARS}-character messages, echo model, SQLite)`,
  );
  console.log('| memory policy | turns 11–20 p50 ms | turns 491–500 p50 ms | ratio |');
  console.log('|---|---:|---:|---:|');
  await turnCost('6,000-token budget (default)', {});
  await turnCost('whole history (AGENT_MEMORY_MAX_TOKENS=0)', { AGENT_MEMORY_MAX_TOKENS: '0' });
}
