import { describe, expect, it } from '@jest/globals';
import { TokenCountCache } from './token-count-cache.js';

/** A counter that counts characters and records every text it was given. */
function recordingCounter() {
  const texts: string[] = [];
  return { texts, count: (text: string) => (texts.push(text), text.length) };
}

describe('TokenCountCache', () => {
  it('counts a text once per conversation, and again in another conversation', () => {
    const cache = new TokenCountCache();
    const { texts, count } = recordingCounter();
    const first = cache.counterFor('c1', count);
    expect([first('hello'), first('world'), first('hello')]).toEqual([5, 5, 5]);
    // A later turn of the same conversation: another counter over the same held counts.
    expect(cache.counterFor('c1', count)('hello')).toBe(5);
    expect(cache.counterFor('c2', count)('hello')).toBe(5);
    expect(texts).toEqual(['hello', 'world', 'hello']);
  });

  it('drops the least recently used conversations past its size, never the answer', () => {
    const cache = new TokenCountCache(10);
    const { texts, count } = recordingCounter();
    cache.counterFor('old', count)('aaaa');
    cache.counterFor('used', count)('bbbb');
    cache.counterFor('old', count)('aaaa'); // held: 'old' is now the most recently used
    cache.counterFor('new', count)('cccc'); // 12 characters: 'used' goes
    expect(texts).toEqual(['aaaa', 'bbbb', 'cccc']);
    expect(cache.counterFor('used', count)('bbbb')).toBe(4);
    expect(texts).toHaveLength(4);
    // 'old' went when 'used' came back (4 + 4 + 4 > 10); 'new' is still held.
    cache.counterFor('new', count)('cccc');
    expect(texts).toHaveLength(4);
    cache.counterFor('old', count)('aaaa');
    expect(texts).toHaveLength(5);
  });

  it('forgets a cleared conversation', () => {
    const cache = new TokenCountCache();
    const { texts, count } = recordingCounter();
    cache.counterFor('c', count)('hello');
    cache.forget('c');
    cache.forget('never seen');
    cache.counterFor('c', count)('hello');
    expect(texts).toEqual(['hello', 'hello']);
  });

  it('does not hold a text longer than its limit, nor one conversation larger than the whole', () => {
    const cache = new TokenCountCache(20, 8);
    const { texts, count } = recordingCounter();
    const counter = cache.counterFor('c', count);
    counter('a very long text');
    counter('a very long text');
    expect(texts).toHaveLength(2);
    for (const text of ['12345678', 'abcdefgh', 'ABCDEFGH']) counter(text); // 24 > 20: all go
    counter('12345678');
    expect(texts).toHaveLength(6);
  });
});
