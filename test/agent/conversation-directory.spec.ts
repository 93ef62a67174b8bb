import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { conversationNamespace } from '../../src/modules/agent/conversations/conversation-directory.interface.js';
import { allPages, directoryBackends } from '../support/conversation-directories.js';

const backends = await directoryBackends();
/** The listings' ids and times only. */
const positions = (page: {
  conversations: Array<{ conversationId: string; lastActiveAt: number }>;
}) =>
  page.conversations.map(({ conversationId, lastActiveAt }) => ({ conversationId, lastActiveAt }));

describe('conversationNamespace', () => {
  it('is what comes before the last slash', () => {
    expect(conversationNamespace('acme/c1')).toBe('acme');
    expect(conversationNamespace('org/team/c1')).toBe('org/team');
    expect(conversationNamespace('c1')).toBe('');
    expect(conversationNamespace('/c1')).toBe('');
  });
});

describe.each(backends)('conversation directory on %s', (_name, pair) => {
  const namespace = () => `ns-${randomUUID()}`;

  it('lists newest activity first, and a touch only moves an entry forward', async () => {
    const [directory] = await pair();
    const ns = namespace();
    await directory.touch(`${ns}/a`, 1_000);
    await directory.touch(`${ns}/b`, 3_000);
    await directory.touch(`${ns}/c`, 2_000);
    await directory.touch(`${ns}/a`, 4_000);
    await directory.touch(`${ns}/b`, 500);
    expect(await directory.list(ns, { limit: 10 })).toEqual({
      conversations: [
        { conversationId: `${ns}/a`, lastActiveAt: 4_000 },
        { conversationId: `${ns}/b`, lastActiveAt: 3_000 },
        { conversationId: `${ns}/c`, lastActiveAt: 2_000 },
      ],
    });
    // `next` only while more follow.
    const first = await directory.list(ns, { limit: 2 });
    expect(first.next).toEqual({ conversationId: `${ns}/b`, lastActiveAt: 3_000 });
    expect(await directory.list(ns, { limit: 2, after: first.next })).toEqual({
      conversations: [{ conversationId: `${ns}/c`, lastActiveAt: 2_000 }],
    });
  });

  it('pages with the last listing as cursor: every entry once, ties by id in code-point order', async () => {
    const [directory] = await pair();
    const ns = namespace();
    // 23 conversations over 4 distinct times; the ids differ past the BMP (U+FFFF < U+10000).
    const suffixes = ['a', 'b', 'z', '\uffff', '\u{10000}', '\u{1F600}'];
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push(`${ns}/${i % 4}-${suffixes[i % suffixes.length]}${i}`);
    await Promise.all(ids.map((id, i) => directory.touch(id, 10_000 + (i % 4))));
    for (const limit of [1, 3, 7, 23, 50]) {
      const listed = await allPages(directory, ns, { limit });
      expect(listed.pages).toBe(Math.max(1, Math.ceil(23 / limit)));
      expect(listed.map((entry) => entry.conversationId).sort()).toEqual([...ids].sort());
      for (let i = 1; i < listed.length; i += 1) {
        const [newer, older] = [listed[i - 1]!, listed[i]!];
        expect(newer.lastActiveAt).toBeGreaterThanOrEqual(older.lastActiveAt);
        if (newer.lastActiveAt === older.lastActiveAt)
          expect(
            Buffer.compare(Buffer.from(newer.conversationId), Buffer.from(older.conversationId)),
          ).toBe(1);
      }
    }
  });

  it('keeps namespaces apart, and forgets a removed conversation', async () => {
    const [directory] = await pair();
    const [ns1, ns2] = [namespace(), namespace()];
    await directory.touch(`${ns1}/x`, 1);
    await directory.touch(`${ns2}/x`, 2);
    await directory.touch(`${ns1}/sub/y`, 3);
    expect(
      (await directory.list(ns1, { limit: 10 })).conversations.map((e) => e.conversationId),
    ).toEqual([`${ns1}/x`]);
    expect(
      (await directory.list(`${ns1}/sub`, { limit: 10 })).conversations.map(
        (e) => e.conversationId,
      ),
    ).toEqual([`${ns1}/sub/y`]);
    await directory.remove(`${ns1}/x`);
    expect(await directory.list(ns1, { limit: 10 })).toEqual({ conversations: [] });
    expect((await directory.list(ns2, { limit: 10 })).conversations).toHaveLength(1);
  });

  it('keeps the newest time when two instances touch one conversation at once', async () => {
    const [first, second] = await pair();
    const ns = namespace();
    const times = Array.from({ length: 40 }, (_, i) => 50_000 + ((i * 7919) % 40));
    await Promise.all(times.map((at, i) => (i % 2 ? first : second).touch(`${ns}/shared`, at)));
    expect(positions(await second.list(ns, { limit: 5 }))).toEqual([
      { conversationId: `${ns}/shared`, lastActiveAt: Math.max(...times) },
    ]);
  });

  it('gives a burst of touches the rows they give one at a time, in call order', async () => {
    const [directory, sequential] = await pair();
    const [burstNs, oneByOneNs] = [namespace(), namespace()];
    // 30 conversations, each touched three or four times: titles (the first one stays), previews
    // (the newest time's wins), and times that go back (an older touch moves nothing).
    const touches = Array.from({ length: 100 }, (_, i) => ({
      id: `c${i % 30}`,
      at: 1_000 + ((i * 37) % 11),
      turn: {
        ...(i % 3 === 0 ? { title: `title ${i}` } : {}),
        ...(i % 4 !== 1 ? { preview: `preview ${i}` } : {}),
      },
    }));
    await Promise.all(touches.map((t) => directory.touch(`${burstNs}/${t.id}`, t.at, t.turn)));
    for (const t of touches) await sequential.touch(`${oneByOneNs}/${t.id}`, t.at, t.turn);
    const listed = async (ns: string) =>
      (await allPages(directory, ns, { limit: 50 }))
        .map((entry) => ({ ...entry, conversationId: entry.conversationId.slice(ns.length) }))
        .sort((a, b) => a.conversationId.localeCompare(b.conversationId));
    const burst = await listed(burstNs);
    expect(burst).toHaveLength(30);
    expect(burst).toEqual(await listed(oneByOneNs));
  });
});
