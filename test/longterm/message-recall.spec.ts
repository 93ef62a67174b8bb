import { describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import type { EmbeddingModel } from '../../src/modules/longterm/recall/embedding/embedding-model.interface.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import {
  type IndexedMessage,
  conversationEntityOf,
} from '../../src/modules/longterm/recall/message-index.js';
import type { MessageRecallHit } from '../../src/modules/longterm/recall/recall.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { recallHarness } from '../support/recall-harness.js';
import { longtermUrisOfOwnDatabases } from '../support/own-databases.js';

const { boot } = recallHarness();

// Its own databases: `embedPending` gives every row of a store without a vector of the model one.
const { uris, keyPrefix } = longtermUrisOfOwnDatabases(
  'message-recall.sqlite',
  'test:message-recall:',
);

/** An offline embedder that can be switched off, to index messages without vectors. */
class SwitchableEmbedder implements EmbeddingModel {
  readonly id = 'switchable-64';
  down = false;
  private readonly inner = new HashingEmbeddingModel({ dimensions: 64 });
  async embed(texts: string[]): Promise<number[][]> {
    if (this.down) throw new Error('embedding service down');
    return this.inner.embed(texts);
  }
}

const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

function said(
  conversationId: string,
  position: number,
  role: 'user' | 'assistant',
  text: string,
): IndexedMessage {
  return { conversationId, position, messageId: `run-${position}:0`, role, text };
}

const where = (hits: Array<{ source: string }>) =>
  (hits as MessageRecallHit[]).map(
    (hit) => `${hit.message.conversationId}#${hit.message.position}`,
  );

describe.each(uris)('message recall on %s', (_label, uri) => {
  const open = (embedder: EmbeddingModel = new SwitchableEmbedder()) =>
    boot({ uri: uri(), keyPrefix, recall: { embedder, backfill: false } });

  it('finds what an entity said in any conversation, naming where; the text alone is indexed', async () => {
    const service = await open();
    const [ada, bob] = [unique('ada'), unique('bob')];
    const [trip, work] = [unique('trip/chat'), unique('work')];
    const seq = await service.nextSeq(ada);
    const run = { seq, updatedAt: Date.UTC(2026, 10, 2) };
    expect(
      await service.indexMessages(
        ada,
        [
          said(trip, 1, 'user', 'We flew to Lisbon and ate pastéis de nata'),
          said(trip, 2, 'assistant', 'Lisbon sounds lovely in the spring'),
          said(work, 7, 'user', 'My manager moved the deadline to Friday'),
        ],
        run,
      ),
    ).toBe(3);
    await service.indexMessages(bob, [said(trip, 3, 'user', 'Lisbon for me too')], {
      seq: await service.nextSeq(bob),
      updatedAt: 1,
    });
    const hits = await service.recall(ada, 'lisbon PASTEIS', { scope: 'messages' });
    expect(hits[0]).toEqual({
      source: 'message',
      message: {
        conversationId: trip,
        position: 1,
        messageId: 'run-1:0',
        role: 'user',
        text: 'We flew to Lisbon and ate pastéis de nata',
        at: run.updatedAt,
      },
      score: expect.any(Number),
      lexical: { rank: 1, score: expect.any(Number) },
      vector: expect.objectContaining({ rank: expect.any(Number) }),
    });
    expect(where(hits)).toEqual(expect.arrayContaining([`${trip}#1`, `${trip}#2`]));
    expect(where(hits)).not.toContain(`${trip}#3`); // bob's
    // Only the text is indexed: not the conversation id, the message id or the role.
    expect(
      await service.recall(ada, 'assistant run chat', { scope: 'messages', mode: 'lexical' }),
    ).toEqual([]);
    const inWork = await service.recall(ada, 'deadline lisbon', {
      scope: 'messages',
      filter: { conversationId: work },
    });
    expect(where(inWork)).toEqual([`${work}#7`]);
    // Records stay out of a messages recall, and messages out of a records recall.
    await service.save({ entityId: ada, key: 'trips/next', value: 'Lisbon again in May', seq });
    expect((await service.recall(ada, 'lisbon')).map((hit) => hit.source)).toEqual(['record']);
    const all = await service.recall(ada, 'lisbon', { scope: 'all', mode: 'lexical' });
    expect(all.map((hit) => hit.source).sort()).toEqual(['message', 'message', 'record']);
    expect(all.map((hit) => hit.score)).toEqual(
      [...all.map((hit) => hit.score)].sort((a, b) => b - a),
    );
    expect(
      (await service.recall(ada, 'lisbon', { scope: 'all', filter: { prefix: 'trips/' } })).map(
        (hit) => hit.source,
      ),
    ).toEqual(['record']);
  });

  it('ranks a message beside other hits of its conversation above a lone one, unless neighbours is 0', async () => {
    const service = await open();
    const ada = unique('ada');
    const [lone, club] = [unique('lone'), unique('club')];
    await service.indexMessages(
      ada,
      [
        said(lone, 1, 'user', 'I bought a kayak'),
        said(club, 1, 'user', 'The kayak club meets'),
        said(club, 2, 'user', 'I bought a kayak'),
      ],
      { seq: await service.nextSeq(ada), updatedAt: 1 },
    );
    const recall = (options: { neighbours?: number }) =>
      service.recall(ada, 'kayak', { scope: 'messages', mode: 'lexical', ...options });
    // Each matches once; the club's two are neighbours, so with the default both rank first.
    const ranked = await recall({});
    expect(where(ranked)[2]).toBe(`${lone}#1`);
    expect(ranked.map((hit) => hit.lexical?.rank)).toEqual([1, 2, 3]);
    // Without the rerank, the lone one's full-text score is the best (or shares it).
    const alone = await recall({ neighbours: 0 });
    const best = Math.max(...alone.map((hit) => hit.lexical!.score));
    const loneHit = alone.find((hit) => where([hit])[0] === `${lone}#1`)!;
    expect(loneHit.lexical!.score).toBe(best);
    for (const neighbours of [-0.1, 1.5, Number.NaN, '0.3'])
      expect(
        await rejectionOf(service.recall(ada, 'kayak', { neighbours: neighbours as number })),
      ).toMatchObject({ argument: 'neighbours' });
  });

  it('a conversation delete removes its messages at once, and a retried run cannot bring them back', async () => {
    const service = await open();
    const [ada, bob] = [unique('ada'), unique('bob')];
    const [gone, kept] = [unique('gone'), unique('kept')];
    const run = { seq: await service.nextSeq(ada), updatedAt: 5 };
    const messages = [
      said(gone, 1, 'user', 'the pelican brief'),
      said(kept, 1, 'user', 'pelican kept'),
    ];
    await service.indexMessages(ada, messages, run);
    await service.indexMessages(bob, [said(gone, 2, 'user', 'pelican from bob')], {
      seq: await service.nextSeq(bob),
      updatedAt: 5,
    });
    expect(await service.forgetConversation(gone)).toBe(2);
    expect(where(await service.recall(ada, 'pelican', { scope: 'messages' }))).toEqual([
      `${kept}#1`,
    ]);
    expect(await service.recall(bob, 'pelican', { scope: 'messages' })).toEqual([]);
    // The same run indexing again (a retry) is refused by the tombstones.
    expect(await service.indexMessages(ada, messages, run)).toBe(1);
    expect(where(await service.recall(ada, 'pelican', { scope: 'messages' }))).toEqual([
      `${kept}#1`,
    ]);
    // The id used again by a new run is indexed, and forgotten again.
    await service.indexMessages(ada, [said(gone, 1, 'user', 'a new pelican')], {
      seq: await service.nextSeq(ada),
      updatedAt: 6,
    });
    expect(
      where(
        await service.recall(ada, 'new pelican', {
          scope: 'messages',
          filter: { conversationId: gone },
        }),
      ),
    ).toEqual([`${gone}#1`]);
    expect(await service.forgetConversation(gone)).toBe(1);
    expect(await service.forgetConversation(gone)).toBe(0);
  });

  it('a run in flight when its conversation is deleted cannot index it afterwards', async () => {
    const service = await open();
    const ada = unique('ada');
    const chat = unique('chat');
    const inFlight = { seq: await service.nextSeq(ada), updatedAt: 1 };
    // The run notes the conversation as it begins; the conversation is deleted before it indexes.
    await service.noteConversation(ada, chat, inFlight);
    expect(await service.forgetConversation(chat)).toBe(0);
    expect(
      await service.indexMessages(ada, [said(chat, 1, 'user', 'late narwhal')], inFlight),
    ).toBe(0);
    expect(await service.recall(ada, 'narwhal', { scope: 'messages' })).toEqual([]);
    // A run begun after the delete indexes the conversation anew.
    const next = { seq: await service.nextSeq(ada), updatedAt: 2 };
    await service.noteConversation(ada, chat, next);
    expect(await service.indexMessages(ada, [said(chat, 1, 'user', 'new narwhal')], next)).toBe(1);
    expect(where(await service.recall(ada, 'narwhal', { scope: 'messages' }))).toEqual([
      `${chat}#1`,
    ]);
  });

  it('deleteEntity erases records and messages, and a run begun before it cannot index afterwards', async () => {
    const service = await open();
    const ada = unique('ada');
    const chat = unique('chat');
    const before = { seq: await service.nextSeq(ada), updatedAt: 1 };
    await service.save({ entityId: ada, key: 'k', value: 'walrus record', seq: before.seq });
    await service.indexMessages(ada, [said(chat, 1, 'user', 'walrus message')], before);
    const inFlight = { seq: await service.nextSeq(ada), updatedAt: 2 };
    await service.deleteEntity(ada);
    expect(await service.recall(ada, 'walrus', { scope: 'all' })).toEqual([]);
    // Nothing names the entity any more: not even the conversation's directory.
    expect(await service.store.search(conversationEntityOf(chat), '', 10)).toEqual([]);
    expect(await service.indexMessages(ada, [said(chat, 2, 'user', 'walrus late')], inFlight)).toBe(
      0,
    );
    expect(await service.recall(ada, 'walrus', { scope: 'all' })).toEqual([]);
    const after = { seq: await service.nextSeq(ada), updatedAt: 3 };
    expect(await service.indexMessages(ada, [said(chat, 3, 'user', 'walrus anew')], after)).toBe(1);
    expect(where(await service.recall(ada, 'walrus', { scope: 'all' }))).toEqual([`${chat}#3`]);
  });

  it('messages indexed while the embedder is down get their vectors from the background pass', async () => {
    const embedder = new SwitchableEmbedder();
    const service = await open(embedder);
    const ada = unique('ada');
    const chat = unique('chat');
    embedder.down = true;
    await service.indexMessages(ada, [said(chat, 1, 'user', 'quokka selfies')], {
      seq: await service.nextSeq(ada),
      updatedAt: 1,
    });
    const [lexicalOnly] = await service.recall(ada, 'quokka', { scope: 'messages' });
    expect(lexicalOnly).toMatchObject({ lexical: { rank: 1 } });
    expect(lexicalOnly!.vector).toBeUndefined();
    embedder.down = false;
    expect(await service.embedPending()).toBeGreaterThanOrEqual(1);
    const [both] = await service.recall(ada, 'quokka', { scope: 'messages' });
    expect(both).toMatchObject({ lexical: { rank: 1 }, vector: { rank: 1 } });
    // The vector is the text's, not the stored object's.
    const [alone] = await new HashingEmbeddingModel({ dimensions: 64 }).embed(['quokka selfies']);
    const [query] = await new HashingEmbeddingModel({ dimensions: 64 }).embed(['quokka']);
    const cosine = alone!.reduce((sum, x, i) => sum + x * query![i]!, 0);
    expect(both!.vector!.score).toBeCloseTo(cosine, 5);
  });
});

describe('message index arguments', () => {
  it('refuses bad messages and the index’s own entity ids, naming the field', async () => {
    const service = await boot({ uri: 'memory://' });
    const run = { seq: 1, updatedAt: 1 };
    const message = said('c', 1, 'user', 'hi');
    for (const [messages, argument] of [
      [[{ ...message, role: 'system' }], 'messages[0].role'],
      [[message, { ...message, position: 0 }], 'messages[1].position'],
      [[{ ...message, conversationId: '' }], 'messages[0].conversationId'],
      [[{ ...message, text: 5 }], 'messages[0].text'],
      ['hi', 'messages'],
    ] as const)
      expect(await rejectionOf(service.indexMessages('u', messages as never, run))).toMatchObject({
        constructor: InvalidArgumentError,
        argument,
      });
    for (const call of [
      service.indexMessages('\u001fmessages\u001fx', [message], run),
      service.recall('\u001fmessages\u001fx', 'hi', { scope: 'messages' }),
      service.recall('', 'hi', { scope: 'messages' }),
      service.deleteEntity('\u001fconversation\u001fx'),
    ])
      expect(await rejectionOf(call)).toMatchObject({ argument: 'entityId' });
  });
});

describe('recall scope and filters', () => {
  it('refuses a filter its scope cannot use', async () => {
    const service = await boot({ uri: 'memory://' });
    const bad = [
      [{ scope: 'threads' }, 'scope'],
      [{ scopes: 'all' }, 'scopes'],
      [{ filter: { conversationId: 'c' } }, 'filter.conversationId'],
      [{ scope: 'messages', filter: { prefix: 'a' } }, 'filter.prefix'],
      [{ scope: 'all', filter: { prefix: 'a', conversationId: 'c' } }, 'filter'],
      [{ scope: 'messages', filter: { conversationId: '' } }, 'filter.conversationId'],
    ] as const;
    for (const [options, argument] of bad)
      expect(await rejectionOf(service.recall('u', 'words', options as never))).toMatchObject({
        constructor: InvalidArgumentError,
        argument,
      });
  });
});
