import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import { CANCELLED_TOOL_RESULT, safeWindow } from './safe-window.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const system = (content: string): ChatMessage => ({ role: 'system', content });
const call = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  toolCalls: ids.map((id) => ({ id, name: 'f', arguments: '{}' })),
});
const result = (id: string): ChatMessage => ({ role: 'tool', content: `r-${id}`, toolCallId: id });
const contents = (messages: ChatMessage[]) =>
  messages.map((m) => m.content ?? `call(${m.toolCalls!.map((c) => c.id).join(',')})`);

describe('safeWindow — examples', () => {
  it('keeps system messages first and the newest N of the rest', () => {
    const input = [
      user('u1'),
      system('s1'),
      assistant('a1'),
      user('u2'),
      system('s2'),
      assistant('a2'),
    ];
    expect(contents(safeWindow(input, 2).output)).toEqual(['s1', 's2', 'u2', 'a2']);
  });

  it('drops a leading run of results left by trimming, and keeps the current user message', () => {
    const input = [
      user('u1'),
      call('c1', 'c2'),
      result('c1'),
      result('c2'),
      assistant('a1'),
      user('u2'),
      assistant('a2'),
    ];
    // The newest 4 are r-c2, a1, u2, a2: r-c2 lost its call to trimming.
    expect(contents(safeWindow(input, 4).output)).toEqual(['a1', 'u2', 'a2']);
  });

  it('supplies a cancelled result for a call whose result is missing, after the other results', () => {
    const input = [
      user('u'),
      call('c1', 'c2', 'c3'),
      result('c1'),
      result('c3'),
      assistant('done'),
    ];
    const out = safeWindow(input, Infinity).output;
    expect(out.map((m) => m.toolCallId ?? m.content ?? 'call')).toEqual([
      'u',
      'call',
      'c1',
      'c3',
      'c2',
      'done',
    ]);
    expect(out[4]).toEqual({
      role: 'tool',
      content: CANCELLED_TOOL_RESULT,
      toolCallId: 'c2',
      name: 'f',
    });
  });

  it('never cuts the current user message or the newest tool round of the current turn', () => {
    const input = [
      user('old'),
      assistant('old answer'),
      user('now'),
      call('c1', 'c2'),
      result('c1'),
      result('c2'),
    ];
    expect(contents(safeWindow(input, 1).output)).toEqual(['now', 'call(c1,c2)', 'r-c1', 'r-c2']);
  });

  it('returns a clean history unchanged at Infinity', () => {
    const input = [system('s'), user('u'), call('c'), result('c'), assistant('a')];
    expect(safeWindow(input, Infinity).output).toEqual(input);
  });

  it('pairs a result with the nearest preceding call holding its id (ids reused across turns)', () => {
    const input = [
      user('u1'),
      call('call_0'),
      result('call_0'),
      assistant('a1'),
      user('u2'),
      call('call_0'),
      { role: 'tool', content: 'second', toolCallId: 'call_0' } satisfies ChatMessage,
    ];
    expect(safeWindow(input, Infinity).output).toEqual(input);
  });

  it('pairs results per round when one turn reuses ids in every round', () => {
    const input = [
      user('u'),
      call('search_web:0', 'search_web:1'),
      result('search_web:0'),
      result('search_web:1'),
      call('search_web:0'),
      assistant('done?'),
    ];
    // The second round's result is missing: it gets a synthetic one, not the first round's.
    expect(safeWindow(input, Infinity).output.map((m) => m.content)).toEqual([
      'u',
      null,
      'r-search_web:0',
      'r-search_web:1',
      null,
      CANCELLED_TOOL_RESULT,
      'done?',
    ]);
  });
});

/** Random histories: system messages anywhere, tool rounds with several results (some missing or duplicated), orphans. */
const historyArbitrary = fc
  .array(
    fc.oneof(
      { weight: 1, arbitrary: fc.constant<'system'>('system') },
      { weight: 4, arbitrary: fc.constant<'user'>('user') },
      { weight: 3, arbitrary: fc.constant<'assistant'>('assistant') },
      {
        weight: 3,
        arbitrary: fc.record({
          calls: fc.integer({ min: 1, max: 3 }),
          answered: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          duplicate: fc.boolean(),
          reuseIds: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.constant<'orphan'>('orphan') },
    ),
    { maxLength: 60 },
  )
  .map((events) => {
    const messages: ChatMessage[] = [];
    events.forEach((event, n) => {
      if (event === 'system') messages.push(system(`s${n}`));
      else if (event === 'user') messages.push(user(`u${n}`));
      else if (event === 'assistant') messages.push(assistant(`a${n}`));
      else if (event === 'orphan') messages.push(result(n % 2 ? `ghost${n}` : 'call_0'));
      else {
        // Providers reuse ids across rounds and turns (`call_0` in every response): an id is unique
        // only within one assistant message.
        const ids = Array.from({ length: event.calls }, (_, i) =>
          event.reuseIds ? `call_${i}` : `c${n}_${i}`,
        );
        messages.push(call(...ids));
        ids.forEach((id, i) => event.answered[i] && messages.push(result(id)));
        if (event.duplicate && event.answered[0]) messages.push(result(ids[0]!));
      }
    });
    return messages;
  });

const windowArbitrary = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constant(Infinity));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('safeWindow — results out of place and repeated ids', () => {
  it('drops a result separated from its call by another message, and cancels the call', () => {
    const input = [call('call_0'), user('u'), result('call_0')];
    expect(safeWindow(input, Infinity).output.map((m) => m.content)).toEqual([
      null,
      CANCELLED_TOOL_RESULT,
      'u',
    ]);
  });

  it('accepts one result per call when a model repeats an id inside one message', () => {
    const input = [user('u'), call('dup', 'dup'), result('dup'), result('dup'), result('dup')];
    expect(safeWindow(input, Infinity).output).toEqual(input.slice(0, 4));
  });
});

describe('safeWindow — properties over random histories (windows 1..50 and Infinity)', () => {
  const check = (property: (input: ChatMessage[], window: number, output: ChatMessage[]) => void) =>
    fc.assert(
      fc.property(historyArbitrary, windowArbitrary, (input, window) => {
        const snapshot = structuredClone(input);
        const output = safeWindow(deepFreeze(input), window).output;
        expect(input).toEqual(snapshot);
        property(input, window, output);
      }),
      { numRuns: 1_000 },
    );

  it('never mutates its input, and puts every system message first, in order', () =>
    check((input, _window, output) => {
      const systems = input.filter((m) => m.role === 'system');
      expect(output.slice(0, systems.length)).toEqual(systems);
      expect(output.slice(systems.length).some((m) => m.role === 'system')).toBe(false);
    }));

  it('sends no tool result before or without its call, and each call’s result once', () =>
    check((_input, _window, output) => {
      const ownerOf = new Map<string, number>();
      const answered = new Set<string>();
      output.forEach((message, index) => {
        if (message.role === 'tool') {
          const owner = ownerOf.get(message.toolCallId!);
          expect(owner).toBeDefined();
          expect(answered.has(`${owner}/${message.toolCallId}`)).toBe(false);
          answered.add(`${owner}/${message.toolCallId}`);
        }
        message.toolCalls?.forEach((c) => ownerOf.set(c.id, index));
      });
    }));

  it('sends each result of the input after the call it belongs to (nearest preceding holder of its id)', () =>
    check((input, _window, output) => {
      const ownerIn = (messages: readonly ChatMessage[], index: number) =>
        messages.findLastIndex(
          (m, i) => i < index && m.toolCalls?.some((c) => c.id === messages[index]!.toolCallId),
        );
      output.forEach((message, index) => {
        if (message.role !== 'tool' || !input.includes(message)) return;
        expect(output[ownerIn(output, index)]).toBe(input[ownerIn(input, input.indexOf(message))]);
      });
    }));

  it('sends no call without all its results, right after it (with synthetic ones for missing results)', () =>
    check((_input, _window, output) => {
      output.forEach((message, index) => {
        if (!message.toolCalls?.length) return;
        const ids = message.toolCalls.map((c) => c.id).sort();
        const following = output.slice(index + 1, index + 1 + ids.length);
        expect(following.every((m) => m.role === 'tool')).toBe(true);
        expect(following.map((m) => m.toolCallId).sort()).toEqual(ids);
      });
    }));

  it('keeps the newest N body messages, except results it must drop', () =>
    check((input, window, output) => {
      const body = input.filter((m) => m.role !== 'system');
      const newest = Number.isFinite(window) ? body.slice(-window) : body;
      for (const message of newest) if (message.role !== 'tool') expect(output).toContain(message);
    }));

  it('keeps the current user message and the current turn’s newest tool round', () =>
    check((input, window, output) => {
      const body = input.filter((m) => m.role !== 'system');
      const lastUser = body.map((m) => m.role).lastIndexOf('user');
      if (lastUser >= 0) expect(output).toContain(body[lastUser]);
      const roundAt = body.findLastIndex((m, i) => i > lastUser && (m.toolCalls?.length ?? 0) > 0);
      if (roundAt < 0) return;
      // The round: the call and the block of tool messages right after it.
      const ids = new Set(body[roundAt]!.toolCalls!.map((c) => c.id));
      let end = roundAt;
      while (body[end + 1]?.role === 'tool') end += 1;
      const round = body
        .slice(roundAt, end + 1)
        .filter((m, i) => i === 0 || ids.has(m.toolCallId!));
      const windowStart = Number.isFinite(window) ? Math.max(0, body.length - window) : 0;
      const touchesWindow = round.some((m) => body.indexOf(m) >= windowStart);
      if (!touchesWindow) return;
      expect(output).toContain(body[roundAt]);
      const firstResults = new Map<string, ChatMessage>();
      for (const m of round)
        if (m.role === 'tool' && !firstResults.has(m.toolCallId!))
          firstResults.set(m.toolCallId!, m);
      for (const m of firstResults.values()) expect(output).toContain(m);
    }));

  it('keeps the input’s relative order', () =>
    check((input, _window, output) => {
      const positions = output
        .filter((m) => input.includes(m) && m.role !== 'system')
        .map((m) => input.indexOf(m));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }));

  it('returns a clean history unchanged at Infinity', () =>
    fc.assert(
      fc.property(historyArbitrary, (input) => {
        const clean = safeWindow(input, Infinity).output;
        expect(safeWindow(clean, Infinity).output).toEqual(clean);
      }),
      { numRuns: 300 },
    ));
});
