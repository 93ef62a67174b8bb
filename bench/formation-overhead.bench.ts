/**
 * What memory formation costs a turn (`npm run bench:formation-overhead`): the agent on the
 * embedded default (SQLite files for conversations, runs and memories; the offline echo model;
 * the plain-statements formation model, which calls no LLM), `BENCH_TURNS` sequential turns (300)
 * of 30 entities stating plain facts — first with formation off (the floor: the same turns, the
 * same stores), then on, alternating for `BENCH_ROUNDS` rounds (2); back to back (each turn's job
 * runs beside the next turn) and `BENCH_PACE_MS` apart (10: a user's pause, the job done before
 * the next turn — the turn's own cost). Prints each block's turn
 * latency p50 / p99 and the on/off ratio of the medians, and, with formation on, its lag (from
 * the turn's start to its job written, from the `memory_formation` spans) p50 / p99, the jobs
 * and their operations. The jobs run in the turns' process beside them: their CPU and their
 * writes (on SQLite, a shared run store: the job's note and its entity leases too) are in the
 * turns' latency, as in an app. A warm-up block of each runs first, uncounted.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Module, type DynamicModule } from '@nestjs/common';
import { AgentModule } from '../src/modules/agent/agent.module.js';
import { AgentService } from '../src/modules/agent/agent.service.js';
import { FORMATION_ATTR, FORMATION_SPAN } from '../src/modules/agent/formation-span.js';
import { ChatMemoryModule } from '../src/modules/chat-memory/chat-memory.module.js';
import { LongtermMemoryModule } from '../src/modules/longterm/longterm.module.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ENTITIES = 30;
const STATEMENTS = [
  (n: number) => `My name is Person${n}.`,
  (n: number) => `I live in City${n % 7}.`,
  (n: number) => `I like tea number ${n % 5}.`,
  (n: number) => `Actually I moved to City${(n + 3) % 7}.`,
  () => 'What do you know about me?',
];

const exporter = new InMemorySpanExporter();
const tracer = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
tracer.register();

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

async function block(formation: boolean, round: number, paceMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'formation-overhead-'));
  @Module({})
  class BenchModule {}
  const root: DynamicModule = {
    module: BenchModule,
    imports: [
      ChatMemoryModule.forRoot({ backend: 'sqlite', path: join(dir, 'chat.sqlite') }),
      LongtermMemoryModule.forRoot({ uri: `sqlite:${join(dir, 'longterm.sqlite')}`, sweep: false }),
      AgentModule.forRoot({
        llm: { provider: 'echo' },
        recall: true,
        ...(formation ? { formation: { model: 'plain-statements' } } : {}),
      }),
    ],
  };
  const app = await NestFactory.createApplicationContext(root, { logger: ['error'] });
  const agent = app.get(AgentService);
  exporter.reset();
  const latencies: number[] = [];
  for (let i = 0; i < TURNS; i += 1) {
    const entity = i % ENTITIES;
    const started = performance.now();
    await agent.run({
      conversationId: `c-${round}-${entity}`,
      entityId: `e-${entity}`,
      message: STATEMENTS[Math.floor(i / ENTITIES) % STATEMENTS.length]!(entity),
    });
    latencies.push(performance.now() - started);
    if (paceMs > 0) await sleep(paceMs); // a user's pause: the turn's job ends before the next
  }
  // The jobs still under way end before the app closes (bounded: 30 s).
  const spans = () => exporter.getFinishedSpans().filter((s) => s.name === FORMATION_SPAN);
  for (let i = 0; formation && i < 300 && spans().length < TURNS; i += 1) await sleep(100);
  const formed = spans();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  return { latencies, formed };
}

const lines = [
  '| block | pause between turns | turns | turn p50 ms | turn p99 ms |',
  '|---|---:|---:|---:|---:|',
];
// A warm-up block of each, not counted: the code compiled, SQLite's files and pages warm.
for (const formation of [false, true]) await block(formation, -1, 0);
const PACES = [0, Number(process.env.BENCH_PACE_MS ?? 10)];
const off = new Map<number, Array<{ p50: number; p99: number }>>(PACES.map((p) => [p, []]));
const on = new Map<number, Array<{ p50: number; p99: number }>>(PACES.map((p) => [p, []]));
let spans: ReadableSpan[] = [];
for (let round = 0; round < ROUNDS; round += 1)
  for (const pace of PACES)
    for (const formation of [false, true]) {
      const { latencies, formed } = await block(formation, round, pace);
      const s = stats(latencies);
      (formation ? on : off).get(pace)!.push(s);
      if (formation) spans = spans.concat(formed);
      lines.push(
        `| formation ${formation ? 'on ' : 'off'} (round ${round + 1}) | ${pace} ms | ${latencies.length} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} |`,
      );
    }
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
lines.push('');
for (const pace of PACES) {
  const [p50, p99] = (['p50', 'p99'] as const).map(
    (q) => median(on.get(pace)!.map((s) => s[q])) / median(off.get(pace)!.map((s) => s[q])),
  );
  lines.push(
    `turns ${pace ? `${pace} ms apart` : 'back to back'}: p50 ratio on/off ${p50!.toFixed(2)}×, p99 ${p99!.toFixed(2)}× (medians of rounds)`,
  );
}
const lags = spans.map((span) => Number(span.attributes[FORMATION_ATTR.lagMs]));
const lag = stats(lags);
const ops = { add: 0, update: 0, invalidate: 0, none: 0 };
for (const span of spans)
  for (const op of Object.keys(ops) as Array<keyof typeof ops>)
    ops[op] += Number(span.attributes[`${FORMATION_ATTR.operations}.${op}`] ?? 0);
const outcomes = new Map<string, number>();
for (const span of spans) {
  const outcome = String(span.attributes[FORMATION_ATTR.outcome]);
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
}
lines.push(
  `formation lag (turn start → job written): p50 ${lag.p50.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ms over ${lags.length} jobs (${[...outcomes].map(([k, v]) => `${v} ${k}`).join(', ')}); operations: ${Object.entries(
    ops,
  )
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}; 0 model calls (the offline model)`,
);
console.log(lines.join('\n'));
await tracer.shutdown();
trace.disable();
