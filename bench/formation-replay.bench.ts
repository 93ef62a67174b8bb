/**
 * Memory formation replayed on LoCoMo (`npm run bench:formation`; needs `LOCOMO_DIR`): the first
 * five conversations, each session one formation job through the real pipeline (extraction →
 * nearest memories → choices → consolidation rules → seq-guarded write), with a scripted model
 * that answers the extraction with the facts LoCoMo ships for the session (`session_K_observation`,
 * each with the turns it rests on) and chooses ADD for each (the rules turn duplicates into NONE).
 * Then the 760 questions (categories 1–4): a question is recalled at k when a top-k memory's
 * sources hold one of its evidence turns — over formed memories, over the raw turns saved as
 * records, and both fused (reciprocal rank fusion of the turn ids), lexical and hybrid (the offline
 * hashing embedder, not a semantic model). Also a job's time against its floor (the same versions
 * written with no model, recall or rules), p50 / p99. `BENCH_BACKEND`: memory (default), sqlite,
 * postgres, mysql or redis.
 */
import 'reflect-metadata';
import { FormedMemories } from '../src/modules/formation/formed-memories.js';
import { HashingEmbeddingModel } from '../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { openBenchLongterm } from './recall/bench-longterm.js';
import { loadLocomo } from './recall/locomo.js';
import { type LocomoSession, loadLocomoSessions } from './recall/locomo-observations.js';
import {
  ObservationsModel,
  observationsFormation,
  sessionJob,
} from './recall/observations-model.js';

const K = [5, 10] as const;
const backend = process.env.BENCH_BACKEND ?? 'memory';
const { service, close } = await openBenchLongterm(backend, {
  recall: { embedder: new HashingEmbeddingModel({ dimensions: 512 }), backfill: false },
});
const memories = new FormedMemories(service);

const model = new ObservationsModel();
const formation = observationsFormation(memories, model);

type List = (entityId: string, question: string) => Promise<string[]>;
const turnIdsOf = (hits: Array<{ record: { value: unknown } }>) =>
  hits.flatMap((hit) =>
    (hit.record.value as { sources: Array<{ messageIds: string[] }> }).sources.flatMap(
      (source) => source.messageIds,
    ),
  );
const lists: Record<string, List> = {};
for (const mode of ['lexical', 'hybrid'] as const) {
  lists[`raw turns, ${mode}`] = async (entityId, question) =>
    (await service.recall(entityId, question, { k: 10, mode })).map((hit) => hit.record.key);
  lists[`formed memories, ${mode}`] = async (entityId, question) =>
    turnIdsOf(await service.recallFormed(entityId, question, { k: 10, mode }));
  lists[`both fused, ${mode}`] = async (entityId, question) =>
    fuse(
      await lists[`formed memories, ${mode}`]!(entityId, question),
      await lists[`raw turns, ${mode}`]!(entityId, question),
    );
}

/** The version a job adds for candidate `index` of a session. */
function versionOf(id: string, session: LocomoSession, index: number, entityId: string) {
  const fact = session.facts[index]!;
  return {
    id,
    entityId,
    text: fact.text,
    kind: 'fact',
    sources: [{ conversationId: session.id, messageIds: fact.turnIds, runId: session.id }],
    observedAt: session.at,
    createdAt: session.at,
    updatedAt: session.at,
  };
}

/** Reciprocal rank fusion (k = 60) of two ranked lists of turn ids. */
function fuse(a: string[], b: string[]): string[] {
  const score = new Map<string, number>();
  for (const list of [a, b])
    [...new Set(list)].forEach((id, rank) => score.set(id, (score.get(id) ?? 0) + 1 / (61 + rank)));
  return [...score.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id);
}

const hits = new Map<string, number>();
let questions = 0;
const jobMs: number[] = [];
const floorMs: number[] = [];
const ops = new Map<string, number>();
let sessionsRun = 0;
let turnsRun = 0;
const questionsOf = new Map(loadLocomo().map((c) => [c.id, c]));
for (const conversation of loadLocomoSessions()) {
  const entityId = `formation-${conversation.id}-${Date.now()}`;
  const floorEntity = `${entityId}-floor`;
  const raw = questionsOf.get(conversation.id)!;
  const seq = await service.nextSeq(entityId);
  await service.store.saveMany(
    raw.turns.map((turn) => ({ entityId, key: turn.key, value: turn.value, seq })),
  );
  for (const session of conversation.sessions) {
    model.session = session;
    const started = performance.now();
    const outcome = await formation.run(
      sessionJob(entityId, conversation.id, session, await memories.nextSeq(entityId)),
    );
    jobMs.push(performance.now() - started);
    for (const op of outcome.record.operations) ops.set(op.op, (ops.get(op.op) ?? 0) + 1);
    // The floor: the versions this job added, written again with no model, recall or rules.
    const added = outcome.record.operations.flatMap((op) =>
      op.op === 'ADD' ? [versionOf(op.memoryId!, session, op.candidate, floorEntity)] : [],
    );
    const floorStarted = performance.now();
    await memories.saveVersions(
      floorEntity,
      { seq: await memories.nextSeq(floorEntity), at: session.at },
      added,
    );
    floorMs.push(performance.now() - floorStarted);
    sessionsRun += 1;
    turnsRun += session.turns.length;
  }
  for (let pass = 0; pass < 100 && (await service.embedPending(1_000)) > 0; pass += 1);
  for (const qa of raw.questions) {
    questions += 1;
    const evidence = new Set(qa.evidence.map((id) => id.trim()));
    for (const [name, list] of Object.entries(lists)) {
      const ids = await list(entityId, qa.question);
      for (const k of K)
        if (ids.slice(0, k).some((id) => evidence.has(id)))
          hits.set(`${name}@${k}`, (hits.get(`${name}@${k}`) ?? 0) + 1);
    }
  }
  await service.deleteEntity(entityId);
  await service.deleteEntity(floorEntity);
}
await close();

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const rate = (name: string, k: number) =>
  (((hits.get(`${name}@${k}`) ?? 0) / questions) * 100).toFixed(1);
console.log(
  `Formation replay on LoCoMo 26, 30, 41, 42, 43 (store: ${backend}): ${sessionsRun} jobs (sessions), ${turnsRun} turns, ${[...ops.values()].reduce((a, b) => a + b, 0)} facts; operations ${[...ops].map(([op, n]) => `${op} ${n}`).join(', ')}; model calls ${model.calls} (${(model.calls / turnsRun).toFixed(3)} per turn)\n`,
);
console.log(`| recall over | recall@5 | recall@10 |\n|---|---:|---:|`);
for (const name of Object.keys(lists))
  console.log(`| ${name} | ${rate(name, 5)} % | ${rate(name, 10)} % |`);
const ratio = pct(jobMs, 50) / pct(floorMs, 50);
console.log(
  `\n${questions} questions. A job (one session): p50 ${pct(jobMs, 50).toFixed(1)} ms, p99 ${pct(jobMs, 99).toFixed(1)} ms; its floor (the same versions written alone): p50 ${pct(floorMs, 50).toFixed(1)} ms, p99 ${pct(floorMs, 99).toFixed(1)} ms; ratio ${ratio.toFixed(2)}×`,
);
