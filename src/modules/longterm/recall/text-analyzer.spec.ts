import { describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { MAX_INDEXED_WORDS, MAX_WORD_LENGTH } from './search-text.js';
import {
  ENGLISH_QUERY_STOP_WORDS,
  TextAnalyzer,
  analyzerFor,
  stemmerProblem,
} from './text-analyzer.js';

describe('TextAnalyzer', () => {
  const english = TextAnalyzer.english;

  it('indexes each word followed by its English stem when the stem differs', () => {
    expect(english.indexedText('Ada WORKS at the café; she lived in Lisbon')).toBe(
      'ada works work at the cafe she lived live in lisbon',
    );
    // Words of other scripts, with digits, and of one or two letters are left as they are.
    expect(english.indexedText('привет x1 2024 is go')).toBe('привет x1 2024 is go');
    expect(english.indexedText('')).toBe('');
  });

  it('keeps the first words of a long text, stems added beside them', () => {
    const text = Array.from({ length: MAX_INDEXED_WORDS + 5 }, () => 'painted').join(' ');
    const terms = english.indexedText(text).split(' ');
    expect(terms).toHaveLength(MAX_INDEXED_WORDS * 2);
    expect(new Set(terms)).toEqual(new Set(['painted', 'paint']));
  });

  it('searches a query by its words but question words, and their stems, once each', () => {
    expect(english.queryTerms('Where does she WORK? Where did she work before?')).toEqual([
      'work',
      'before',
      'befor',
    ]);
    expect(english.queryTerms('When did Caroline go camping?')).toEqual([
      'caroline',
      'carolin',
      'go',
      'camping',
      'camp',
    ]);
    // Nothing but question words: all of them are searched.
    expect(english.queryTerms('Who is she?')).toEqual(['who', 'is', 'she']);
  });

  it('drops stop words before the 32-word cap, and stems that are stop words', () => {
    const filler = Array.from({ length: 40 }, (_, i) => ENGLISH_QUERY_STOP_WORDS[i]).join(' ');
    expect(english.queryTerms(`${filler} kayak Peru family`)).toEqual([
      'kayak',
      'peru',
      'family',
      'famili',
    ]);
    // "beings" stems to "be", a stop word: searched by the word alone.
    expect(english.queryTerms('human beings')).toEqual(['human', 'beings']);
    // Names, months and content words that are also function words are searched.
    expect(english.queryTerms('What does Will do in May?')).toEqual(['will', 'may']);
  });

  it('keeps a word a custom stemmer throws on, at save and at search alike', () => {
    const flaky = new TextAnalyzer({
      stemmer: (word) => {
        if (word === 'boom') throw new Error('stemmer bug');
        return word.replace(/s$/, '');
      },
    });
    expect(flaky.indexedText('boom cats')).toBe('boom cats cat');
    expect(flaky.queryTerms('boom cats')).toEqual(['boom', 'cats', 'cat']);
  });

  it('matches a text holding any term, by word or by stem', () => {
    const terms = new Set(english.queryTerms('painting'));
    expect(english.matches('She painted the kitchen', terms)).toBe(true);
    expect(english.matches('She cooked', terms)).toBe(false);
  });

  it('refuses a bad query as queryWords does, naming it', () => {
    for (const query of ['', ' ?! ', 42, 'x'.repeat(2_001)]) {
      const error = (() => {
        try {
          english.queryTerms(query);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe('query');
    }
  });

  it("with stemmer 'none' and no stop words, terms are the words", () => {
    const plain = new TextAnalyzer({ stemmer: 'none', queryStopWords: [] });
    expect(plain.indexedText('Ada works')).toBe('ada works');
    expect(plain.queryTerms('Where does she work?')).toEqual(['where', 'does', 'she', 'work']);
  });

  it("normalizes a custom stemmer's answer to one term, and keeps the word for an empty one", () => {
    const custom = new TextAnalyzer({
      stemmer: (word) =>
        word === 'häuser' ? 'HAUS!' : word === 'leer' ? ' ' : `${word}-${'x'.repeat(80)}`,
      queryStopWords: ['DIE'],
    });
    // Words are folded before the stemmer sees them ("Häuser" is "hauser"), so it answers for that.
    expect(custom.indexedText('leer')).toBe('leer');
    const long = custom.indexedText('ab').split(' ');
    expect(long[0]).toBe('ab');
    expect(long[1]).toHaveLength(MAX_WORD_LENGTH);
    expect(long[1]!.startsWith('abx')).toBe(true);
    expect(custom.queryTerms('die leer')).toEqual(['leer']);
  });

  it('refuses a stemmer or stop words of the wrong type, naming the option', () => {
    expect(() => new TextAnalyzer({ stemmer: 'german' as 'english' })).toThrow(
      /textSearch\.stemmer.*'german'/,
    );
    expect(() => new TextAnalyzer({ queryStopWords: [1] as unknown as string[] })).toThrow(
      /textSearch\.queryStopWords/,
    );
  });

  it('finds what is wrong with a custom stemmer at bootstrap', () => {
    expect(stemmerProblem((word) => word.slice(0, 3))).toBeUndefined();
    expect(
      stemmerProblem(() => {
        throw new Error('unbound');
      }),
    ).toBe('threw on "running": unbound');
    expect(stemmerProblem((async (word: string) => word) as never)).toMatch(/a Promise/);
  });

  it('gives one analyzer per options object, the English one when there are none', () => {
    const options = { stemmer: 'none' as const };
    expect(analyzerFor(options)).toBe(analyzerFor(options));
    expect(analyzerFor(undefined)).toBe(TextAnalyzer.english);
    expect(ENGLISH_QUERY_STOP_WORDS).toContain('where');
    expect(Object.isFrozen(ENGLISH_QUERY_STOP_WORDS)).toBe(true);
  });
});
