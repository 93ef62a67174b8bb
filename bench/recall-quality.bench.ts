/**
 * Retrieval quality on LoCoMo (`npm run bench:recall`; needs `LOCOMO_DIR`, see bench/recall/locomo.ts).
 * The first five conversations only: each turn saved as a record keyed by its `dia_id` (value
 * `{ speaker, text, image? }`, whose string leaves are its text), each question of categories 1–4 a
 * query; a question is recalled at k when one of its top-k keys is in its `evidence`. Prints
 * recall@5 and @10 per list — the package's lexical, vector and hybrid recall (the vector list with
 * the offline `HashingEmbeddingModel`, which is not a semantic model, `BENCH_DIMENSIONS` 512), and a
 * plain BM25 baseline (white-space words, lower-cased) in the same run — overall and per category;
 * and the same turns indexed as messages (`scope: 'messages'`, the text without the speaker). `BENCH_BACKEND` picks the store:
 * memory (default), sqlite, postgres, mysql or redis.
 */
import 'reflect-metadata';
import { LongtermMemoryService } from '../src/modules/longterm/longterm-memory.service.js';
import { HashingEmbeddingModel } from '../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { openBenchLongterm } from './recall/bench-longterm.js';
import { loadLocomo } from './recall/locomo.js';
import { PlainBm25 } from './recall/plain-bm25.js';
import { wordVectorEmbedder } from './recall/word-vector-embedder.js';

const K = [5, 10] as const;
const CATEGORIES = ['multi-hop', 'temporal', 'open-domain', 'single-hop'];

/** Recall@k tallies of one list. */
class Tally {
  readonly hits = new Map<string, number>();
  readonly totals = new Map<string, number>();
  add(bucket: string, k: number, hit: boolean): void {
    const name = `${bucket}@${k}`;
    this.totals.set(name, (this.totals.get(name) ?? 0) + 1);
    if (hit) this.hits.set(name, (this.hits.get(name) ?? 0) + 1);
  }
  rate(bucket: string, k: number): string {
    const name = `${bucket}@${k}`;
    return (((this.hits.get(name) ?? 0) / (this.totals.get(name) ?? 1)) * 100).toFixed(1);
  }
}

const backend = process.env.BENCH_BACKEND ?? 'memory';
// The offline hashing embedder (not a semantic model), or word vectors from BENCH_WORD_VECTORS.
const embedder = process.env.BENCH_WORD_VECTORS
  ? wordVectorEmbedder(process.env.BENCH_WORD_VECTORS)
  : new HashingEmbeddingModel({ dimensions: Number(process.env.BENCH_DIMENSIONS ?? 512) });
const semantic = process.env.BENCH_WORD_VECTORS ? 'word vectors' : 'not semantic';
const { service, close } = await openBenchLongterm(backend, {
  recall: { embedder, backfill: false },
});
const lists: Record<string, (entityId: string, question: string) => Promise<string[]>> = {};
const baselines = new Map<string, PlainBm25>();
lists['plain BM25 (baseline)'] = async (entityId, question) =>
  baselines.get(entityId)!.search(question, 10);
for (const mode of ['lexical', 'vector', 'hybrid'] as const)
  lists[`${mode}${mode === 'lexical' ? '' : ` (${embedder.id}, ${semantic})`}`] = async (
    entityId,
    question,
  ) => (await service.recall(entityId, question, { k: 10, mode })).map((hit) => hit.record.key);

// The same turns indexed as messages (what an agent with recall.messages does): one conversation
// per session, the text alone (a message does not carry its speaker's name), found by message id.
for (const mode of ['lexical', 'hybrid'] as const)
  lists[`messages, ${mode}`] = async (entityId, question) =>
    (await service.recall(entityId, question, { k: 10, mode, scope: 'messages' })).flatMap((hit) =>
      hit.source === 'message' ? [hit.message.messageId] : [],
    );

const tallies = Object.fromEntries(Object.keys(lists).map((name) => [name, new Tally()]));
let questions = 0;
let turns = 0;
for (const conversation of loadLocomo()) {
  const entityId = `locomo-${conversation.id}-${Date.now()}`;
  const baseline = new PlainBm25();
  baselines.set(entityId, baseline);
  const seq = await service.nextSeq(entityId);
  await service.store.saveMany(
    conversation.turns.map((turn) => ({ entityId, key: turn.key, value: turn.value, seq })),
  );
  const speakers = [...new Set(conversation.turns.map((turn) => turn.value.speaker))];
  await service.indexMessages(
    entityId,
    conversation.turns.map((turn, i) => ({
      conversationId: `${entityId}-${turn.key.split(':')[0]}`,
      position: i + 1,
      messageId: turn.key,
      role: turn.value.speaker === speakers[0] ? 'user' : 'assistant',
      text: [turn.value.text, turn.value.image ?? ''].join('\n'),
    })),
    { seq, updatedAt: Date.now() },
  );
  await service.embedPending(500);
  for (const turn of conversation.turns)
    baseline.add(
      turn.key,
      [turn.value.speaker, turn.value.text, turn.value.image ?? ''].join('\n'),
    );
  turns += conversation.turns.length;
  for (const qa of conversation.questions) {
    questions += 1;
    const evidence = new Set(qa.evidence.map((id) => id.trim()));
    for (const [name, list] of Object.entries(lists)) {
      const keys = await list(entityId, qa.question);
      for (const k of K) {
        const hit = keys.slice(0, k).some((key) => evidence.has(key));
        tallies[name]!.add('all', k, hit);
        tallies[name]!.add(CATEGORIES[qa.category - 1]!, k, hit);
      }
    }
  }
  await service.deleteEntity(entityId);
}
await close();

console.log(
  `LoCoMo conversations 26, 30, 41, 42, 43: ${turns} turns, ${questions} questions (categories 1–4), store: ${backend}\n`,
);
console.log(
  `| list | recall@5 | recall@10 | ${CATEGORIES.map((c) => `${c} @5 / @10`).join(' | ')} |`,
);
console.log(`|---|---:|---:|${CATEGORIES.map(() => '---:').join('|')}|`);
for (const [name, tally] of Object.entries(tallies))
  console.log(
    `| ${name} | ${tally.rate('all', 5)} % | ${tally.rate('all', 10)} % | ${CATEGORIES.map((c) => `${tally.rate(c, 5)} / ${tally.rate(c, 10)}`).join(' | ')} |`,
  );
export type { LongtermMemoryService };
