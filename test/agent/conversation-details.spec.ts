import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import {
  conversationTurnText,
  cutText,
} from '../../src/modules/agent/conversations/conversation-details.js';
import type { ConversationDirectory } from '../../src/modules/agent/conversations/conversation-directory.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { allPages, directoryBackends } from '../support/conversation-directories.js';

const backends = await directoryBackends();

describe('conversationTurnText', () => {
  it('single-lines the text and cuts the title at 80, the preview at 120, at a word, with …', () => {
    const long = `  Plan   a trip\n\tto ${'Lisbon and Porto '.repeat(10)}`;
    const { title, preview } = conversationTurnText(long);
    expect(title).toMatch(/^Plan a trip to Lisbon and Porto .*…$/);
    expect(Array.from(title!).length).toBeLessThanOrEqual(80);
    expect(title!.slice(0, -1)).toBe(title!.slice(0, -1).trimEnd());
    expect(long.replace(/\s+/g, ' ')).toContain(title!.slice(0, -1));
    expect(Array.from(preview!).length).toBeLessThanOrEqual(120);
    expect(conversationTurnText('hello\n\nworld')).toEqual({
      title: 'hello world',
      preview: 'hello world',
    });
  });

  it('takes the text parts of a user message, else [image] or [file]', () => {
    const image = { type: 'image' as const, image: 'https://example.com/a.png' };
    const file = {
      type: 'file' as const,
      data: 'https://example.com/a.pdf',
      mediaType: 'application/pdf',
    };
    expect(
      conversationTurnText({
        role: 'user',
        content: [image, { type: 'text', text: 'What is it?' }],
      }),
    ).toEqual({ title: 'What is it?', preview: 'What is it?' });
    expect(conversationTurnText({ role: 'user', content: [image] }).preview).toBe('[image]');
    expect(conversationTurnText({ role: 'user', content: [file] }).title).toBe('[file]');
    expect(conversationTurnText({ role: 'assistant', content: 'no' })).toEqual({});
  });

  it('cuts a single long word where it is, and counts code points', () => {
    expect(cutText('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(cutText('😀'.repeat(12), 10)).toBe(`${'😀'.repeat(9)}…`);
  });
});

describe.each(backends)('conversation details on %s', (_name, pair) => {
  const namespace = () => `ns-${randomUUID()}`;
  const one = async (directory: ConversationDirectory, ns: string) =>
    (await directory.list(ns, { limit: 1 })).conversations[0];

  it('takes the first message as title, the newest as preview', async () => {
    const [directory, other] = await pair();
    const ns = namespace();
    const id = `${ns}/c`;
    await directory.touch(id, 1_000, { title: 'First question', preview: 'First question' });
    await other.touch(id, 2_000, { title: 'Second', preview: 'Second' });
    // An older time (another process's clock) does not take the preview back.
    await directory.touch(id, 1_500, { title: 'Late', preview: 'Late' });
    await directory.touch(id, 2_000);
    expect(await one(other, ns)).toEqual({
      conversationId: id,
      lastActiveAt: 2_000,
      title: 'First question',
      preview: 'Second',
    });
  });

  it('renames, clears a title for good, and answers undefined for an unknown conversation', async () => {
    const [directory, other] = await pair();
    const ns = namespace();
    const id = `${ns}/c`;
    expect(await directory.update(id, { title: 'Nope' })).toBeUndefined();
    expect((await directory.list(ns, { limit: 5 })).conversations).toEqual([]);
    await directory.touch(id, 10, { title: 'Hi', preview: 'Hi' });
    expect(await directory.update(id, { title: '  Trip plans  ' })).toEqual({
      conversationId: id,
      lastActiveAt: 10,
      title: 'Trip plans',
      preview: 'Hi',
    });
    await other.touch(id, 20, { title: 'Next', preview: 'Next' });
    expect((await one(directory, ns))!.title).toBe('Trip plans');
    const cleared = await other.update(id, { title: null });
    expect(cleared).toEqual({ conversationId: id, lastActiveAt: 20, preview: 'Next' });
    await directory.touch(id, 30, { title: 'Again', preview: 'Again' });
    expect(await one(other, ns)).toEqual({
      conversationId: id,
      lastActiveAt: 30,
      preview: 'Again',
    });
    for (const title of ['', '   ', 'x'.repeat(201), 'a\u0000b'])
      expect(await rejectionOf(directory.update(id, { title }))).toBeInstanceOf(
        InvalidArgumentError,
      );
  });

  it('merges metadata, deletes null keys, caps at 16 keys after the merge', async () => {
    const [directory, other] = await pair();
    const ns = namespace();
    const id = `${ns}/c`;
    await directory.touch(id, 10);
    expect(
      (await directory.update(id, { metadata: { team: 'a', 'x.y-z_1': 'v' } }))!.metadata,
    ).toEqual({ team: 'a', 'x.y-z_1': 'v' });
    expect(
      (await other.update(id, { metadata: { team: 'b', 'x.y-z_1': null } }))!.metadata,
    ).toEqual({ team: 'b' });
    const fifteen = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, `${i}`]));
    expect(
      Object.keys((await directory.update(id, { metadata: fifteen }))!.metadata!),
    ).toHaveLength(16);
    const over = await rejectionOf(directory.update(id, { metadata: { one: 'more' } }));
    expect(over).toBeInstanceOf(InvalidArgumentError);
    expect((over as Error).message).toContain('16');
    // Swapping a key for another stays within the cap; nothing of a refused change was written.
    const swapped = await directory.update(id, { metadata: { k0: null, other: 'x' } });
    expect(swapped!.metadata).toMatchObject({ other: 'x', team: 'b' });
    expect(swapped!.metadata).not.toHaveProperty('k0');
    expect(swapped!.metadata).not.toHaveProperty('one');
    expect((await one(other, ns))!.metadata).toEqual(swapped!.metadata);
    expect((await directory.update(id, { title: 'kept' }))!.metadata).toEqual(swapped!.metadata);
  });

  it('refuses bad keys and values, naming the key', async () => {
    const [directory] = await pair();
    const id = `${namespace()}/c`;
    await directory.touch(id, 10);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ 'a b': 'x' }, '"a b"'],
      [{ ['k'.repeat(65)]: 'x' }, 'k'.repeat(65)],
      [{ '': 'x' }, '""'],
      [{ long: 'v'.repeat(513) }, '"long"'],
      [{ num: 5 }, '"num"'],
      [{ nul: 'a\u0000' }, '"nul"'],
    ];
    for (const [metadata, named] of bad) {
      const error = await rejectionOf(
        directory.update(id, { metadata: metadata as Record<string, string> }),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain(named);
    }
    expect((await directory.update(id, { metadata: { ok: 'v'.repeat(512) } }))!.metadata).toEqual({
      ok: 'v'.repeat(512),
    });
  });

  it('keeps both of two concurrent changes of different keys', async () => {
    const [directory, other] = await pair();
    const ns = namespace();
    const id = `${ns}/c`;
    await directory.touch(id, 10);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? directory : other).update(id, { metadata: { [`k${i}`]: `${i}` } }),
      ),
    );
    expect(Object.keys((await one(directory, ns))!.metadata!).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `k${i}`).sort(),
    );
  });

  it('filters by metadata (exact values, every pair) across pages and equal times', async () => {
    const [directory] = await pair();
    const ns = namespace();
    const expected: string[] = [];
    const ids = Array.from({ length: 40 }, (_, i) => `${ns}/${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((id, i) => directory.touch(id, 5_000 + (i % 3))));
    for (const [i, id] of ids.entries()) {
      const team = i % 3 === 0 ? 'a' : i % 3 === 1 ? 'A' : 'b';
      await directory.update(id, { metadata: { team, tier: i % 2 ? 'pro' : 'free' } });
      if (team === 'a' && i % 2) expected.push(id);
    }
    const filter = { team: 'a', tier: 'pro' };
    for (const limit of [1, 2, 5, 100]) {
      const listed = await allPages(directory, ns, { limit, metadata: filter });
      expect(listed.map((each) => each.conversationId).sort()).toEqual(expected.sort());
      for (const each of listed) expect(each.metadata).toMatchObject(filter);
      for (let i = 1; i < listed.length; i += 1) {
        const [newer, older] = [listed[i - 1]!, listed[i]!];
        expect(newer.lastActiveAt).toBeGreaterThanOrEqual(older.lastActiveAt);
        if (newer.lastActiveAt === older.lastActiveAt)
          expect(newer.conversationId > older.conversationId).toBe(true);
      }
    }
    expect((await allPages(directory, ns, { limit: 100, metadata: { team: 'A' } })).length).toBe(
      13,
    );
    expect([...(await allPages(directory, ns, { limit: 10, metadata: { team: 'c' } }))]).toEqual(
      [],
    );
    expect([...(await allPages(directory, namespace(), { limit: 10, metadata: filter }))]).toEqual(
      [],
    );
  });

  it('pages on past a long run of entries that do not match (bounded scans go on by cursor)', async () => {
    const [directory] = await pair();
    const ns = namespace();
    const matching = [`${ns}/old-1`, `${ns}/old-2`];
    for (const [i, id] of matching.entries()) {
      await directory.touch(id, 100 + i);
      await directory.update(id, { metadata: { pick: 'yes' } });
    }
    const others = Array.from({ length: 1_100 }, (_, i) => `${ns}/n${i}`);
    for (let i = 0; i < others.length; i += 100)
      await Promise.all(
        others.slice(i, i + 100).map((id, j) => directory.touch(id, 1_000 + i + j)),
      );
    const listed = await allPages(directory, ns, { limit: 5, metadata: { pick: 'yes' } });
    expect(listed.map((each) => each.conversationId)).toEqual([...matching].reverse());
    // Every backend stops reading at 1,000 entries and hands a cursor on: an empty first page,
    // then the matches (one tenant's rare filter costs the database no more than that per page).
    expect(listed.pages).toBe(2);
  });

  it('forgets title, preview and metadata on remove, and keeps tenants apart', async () => {
    const [directory, other] = await pair();
    const [ns1, ns2] = [namespace(), namespace()];
    for (const ns of [ns1, ns2]) {
      await directory.touch(`${ns}/c`, 10, { title: `T ${ns}`, preview: `P ${ns}` });
      await directory.update(`${ns}/c`, { metadata: { owner: ns } });
    }
    expect((await allPages(other, ns1, { limit: 5, metadata: { owner: ns2 } })).length).toBe(0);
    expect((await one(other, ns2))!.metadata).toEqual({ owner: ns2 });
    await other.remove(`${ns1}/c`);
    expect(await directory.update(`${ns1}/c`, { title: 'x' })).toBeUndefined();
    await directory.touch(`${ns1}/c`, 20, { title: 'New', preview: 'New' });
    expect(await one(directory, ns1)).toEqual({
      conversationId: `${ns1}/c`,
      lastActiveAt: 20,
      title: 'New',
      preview: 'New',
    });
    expect(await one(directory, ns2)).toMatchObject({
      title: `T ${ns2}`,
      metadata: { owner: ns2 },
    });
  });
});
