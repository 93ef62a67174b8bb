import { describe, expect, it } from '@jest/globals';
import { WordVectorRerankingModel } from 'nest-agent-memory';
import { errorOf, variableAtFault } from './config-error.testing.js';
import { loadLongtermConfig } from './longterm.config.js';

describe('long-term memory configuration', () => {
  it('defaults to the chat store SQLite file with migrations on', () => {
    expect(loadLongtermConfig({})).toEqual({
      uri: 'sqlite:./data/agent-memory.sqlite',
      migrationsRun: true,
    });
    expect(loadLongtermConfig({ SQLITE_PATH: '/var/app.db', DB_MIGRATIONS_RUN: 'false' })).toEqual({
      uri: 'sqlite:/var/app.db',
      migrationsRun: false,
    });
  });

  it('turns the tier off with "off"', () => {
    expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: 'off' })).toEqual({});
    expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: ' OFF ' })).toEqual({});
  });

  it('accepts every store URI form, migrations only for SQL', () => {
    const sql = [
      'sqlite:./lt.sqlite',
      'sqlite::memory:',
      'sqlite:///abs/lt.sqlite',
      'postgres://u:p@db:5432/app',
      'postgresql://db/app',
      'mysql://u@db/app',
      'mariadb://db/app',
      'POSTGRES://db/app',
    ];
    for (const uri of sql)
      expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: uri })).toEqual({
        uri,
        migrationsRun: true,
      });
    expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: 'memory://' })).toEqual({ uri: 'memory://' });
    for (const uri of [
      'redis://:p@cache:6379',
      'rediss://cache',
      'redis+cluster://c1:7000,c2:7001',
    ])
      expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: uri })).toEqual({
        uri,
        keyPrefix: 'agent-memory:longterm:',
      });
    expect(
      loadLongtermConfig({ LONGTERM_MEMORY_URI: 'redis://cache', REDIS_KEY_PREFIX: 'staging:' }),
    ).toEqual({ uri: 'redis://cache', keyPrefix: 'staging:longterm:' });
    // A PostgreSQL Unix socket needs no host (the module's own rule).
    const socket = 'postgres:///app?host=/var/run/postgresql&user=app';
    expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: socket })).toMatchObject({ uri: socket });
  });

  it('names LONGTERM_MEMORY_URI for an invalid value', () => {
    for (const uri of [
      'mongodb://db/app',
      'sqlite:',
      'sqlite://',
      'memory://host',
      'postgres:///app',
      'mysql:///app?socketPath=/run/mysqld/mysqld.sock',
      './relative.sqlite',
      'http://example.com',
      'redis+cluster://c1:7000/0',
    ])
      expect(variableAtFault(() => loadLongtermConfig({ LONGTERM_MEMORY_URI: uri }))).toBe(
        'LONGTERM_MEMORY_URI',
      );
    expect(variableAtFault(() => loadLongtermConfig({ DB_MIGRATIONS_RUN: 'maybe' }))).toBe(
      'DB_MIGRATIONS_RUN',
    );
  });

  it('never prints a password', () => {
    for (const uri of [
      'postgres://u:secret@:5432/app',
      'mysql://u:secret@h:bad/app',
      'redis+cluster://u:secret@h:bad',
    ])
      expect(errorOf(() => loadLongtermConfig({ LONGTERM_MEMORY_URI: uri })).message).not.toContain(
        'secret',
      );
  });
});

describe('recall configuration', () => {
  it('is full-text alone by default; RECALL_EMBEDDER picks the offline or an OpenAI-compatible embedder', () => {
    expect(loadLongtermConfig({ LONGTERM_MEMORY_URI: 'memory://' }).recall).toBeUndefined();
    const hashing = loadLongtermConfig({
      LONGTERM_MEMORY_URI: 'memory://',
      RECALL_EMBEDDER: 'hashing',
    });
    expect((hashing.recall!.embedder as { id: string }).id).toBe('hashing-v2-256');
    expect(
      loadLongtermConfig({
        LONGTERM_MEMORY_URI: 'memory://',
        RECALL_EMBEDDER: 'openai-compatible',
        RECALL_EMBEDDER_URL: 'http://127.0.0.1:11434/v1',
        RECALL_EMBEDDER_MODEL: 'nomic-embed-text',
        RECALL_EMBEDDER_API_KEY: 'sk-x',
      }).recall,
    ).toEqual({
      embedder: {
        provider: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'nomic-embed-text',
        apiKey: 'sk-x',
      },
    });
  });

  it('RECALL_RERANK=word-vectors adds the word-vector rerank, with RECALL_WORD_VECTORS_FILE its file', () => {
    const rerank = loadLongtermConfig({
      LONGTERM_MEMORY_URI: 'memory://',
      RECALL_RERANK: 'word-vectors',
      RECALL_WORD_VECTORS_FILE: '/data/vectors.json',
    }).recall!;
    expect(rerank.embedder).toBeUndefined();
    expect(rerank.rerank!.model).toBeInstanceOf(WordVectorRerankingModel);
    const both = loadLongtermConfig({
      LONGTERM_MEMORY_URI: 'memory://',
      RECALL_EMBEDDER: 'hashing',
      RECALL_RERANK: 'word-vectors',
    }).recall!;
    expect(both.embedder).toBeDefined();
    expect(both.rerank!.model.id).toBe('word-vectors');
  });

  it('names the variable at fault', () => {
    for (const [env, variable] of [
      [{ RECALL_RERANK: 'cohere' }, 'RECALL_RERANK'],
      [{ RECALL_WORD_VECTORS_FILE: '/data/v.json' }, 'RECALL_WORD_VECTORS_FILE'],
      [{ RECALL_EMBEDDER: 'bert' }, 'RECALL_EMBEDDER'],
      [{ RECALL_EMBEDDER: 'openai-compatible', RECALL_EMBEDDER_MODEL: 'm' }, 'RECALL_EMBEDDER_URL'],
      [
        { RECALL_EMBEDDER: 'openai-compatible', RECALL_EMBEDDER_URL: 'ftp://x' },
        'RECALL_EMBEDDER_URL',
      ],
      [
        { RECALL_EMBEDDER: 'openai-compatible', RECALL_EMBEDDER_URL: 'http://x' },
        'RECALL_EMBEDDER_MODEL',
      ],
    ] as const)
      expect(
        variableAtFault(() => loadLongtermConfig({ LONGTERM_MEMORY_URI: 'memory://', ...env })),
      ).toBe(variable);
  });
});
