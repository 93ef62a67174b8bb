import { describe, expect, it } from '@jest/globals';
import { withinBudget } from './job-budget.js';

const message = (id: string, text: string) => ({ id, role: 'user' as const, text });

describe('withinBudget: what of a turn the extraction reads', () => {
  it('keeps messages in order, cuts the one that crosses the budget, leaves out the rest', () => {
    const messages = [message('a', 'x'.repeat(6)), message('b', 'y'.repeat(6)), message('c', 'z')];
    expect(withinBudget(messages, 20)).toEqual(messages);
    expect(withinBudget(messages, 9)).toEqual([message('a', 'xxxxxx'), message('b', 'yyy')]);
    expect(withinBudget(messages, 6)).toEqual([message('a', 'xxxxxx')]);
    expect(withinBudget([], 6)).toEqual([]);
  });
});
