import { describe, expect, it } from '@jest/globals';
import { errorOf, variableAtFault } from './config-error.testing.js';
import { loadLlmConfig } from './llm.config.js';

describe('LLM configuration', () => {
  it('falls back to the echo model, flagged, when nothing names a model', () => {
    expect(loadLlmConfig({})).toEqual({ options: { provider: 'echo' }, echoByDefault: true });
  });

  it('does not flag an echo model chosen on purpose', () => {
    expect(loadLlmConfig({ LLM_PROVIDER: 'echo', OPENAI_API_KEY: 'sk-x' })).toEqual({
      options: { provider: 'echo' },
      echoByDefault: false,
    });
  });

  it('picks OpenAI when its key or base URL is set', () => {
    expect(loadLlmConfig({ OPENAI_API_KEY: 'sk-test' })).toEqual({
      options: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-test' },
      echoByDefault: false,
    });
    expect(
      loadLlmConfig({
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
        LLM_MODEL: 'llama3.1',
        LLM_TIMEOUT_MS: '120000',
      }),
    ).toEqual({
      options: {
        provider: 'openai',
        model: 'llama3.1',
        baseUrl: 'http://localhost:11434/v1',
        timeoutMs: 120_000,
      },
      echoByDefault: false,
    });
  });

  it('builds OpenAI-compatible options (Ollama, vLLM, LM Studio) from LLM_BASE_URL', () => {
    expect(
      loadLlmConfig({
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
        LLM_MODEL: 'llama3.2',
      }),
    ).toEqual({
      options: {
        provider: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'llama3.2',
      },
      echoByDefault: false,
    });
    expect(
      loadLlmConfig({
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: 'https://vllm.internal/v1',
        LLM_MODEL: 'qwen',
        LLM_API_KEY: 'token',
        LLM_MAX_RETRIES: '0',
      }).options,
    ).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'https://vllm.internal/v1',
      model: 'qwen',
      apiKey: 'token',
      retry: { maxRetries: 0 },
    });
    for (const [env, variable] of [
      [{ LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'm' }, 'LLM_BASE_URL'],
      [{ LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'http://127.0.0.1:1/v1' }, 'LLM_MODEL'],
      [
        { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'file:///etc/passwd', LLM_MODEL: 'm' },
        'LLM_BASE_URL',
      ],
    ] as const) {
      expect(variableAtFault(() => loadLlmConfig(env))).toBe(variable);
    }
  });

  it('builds Anthropic options', () => {
    expect(
      loadLlmConfig({
        LLM_PROVIDER: 'anthropic',
        LLM_MODEL: 'claude-test',
        ANTHROPIC_API_KEY: 'ak-test',
      }),
    ).toEqual({
      options: { provider: 'anthropic', model: 'claude-test', apiKey: 'ak-test' },
      echoByDefault: false,
    });
  });

  it('names the variable at fault', () => {
    expect(variableAtFault(() => loadLlmConfig({ LLM_PROVIDER: 'gemini' }))).toBe('LLM_PROVIDER');
    expect(variableAtFault(() => loadLlmConfig({ OPENAI_BASE_URL: 'ftp://h/v1' }))).toBe(
      'OPENAI_BASE_URL',
    );
    expect(variableAtFault(() => loadLlmConfig({ OPENAI_BASE_URL: 'not a url' }))).toBe(
      'OPENAI_BASE_URL',
    );
    expect(variableAtFault(() => loadLlmConfig({ LLM_PROVIDER: 'openai' }))).toBe('OPENAI_API_KEY');
    const anthropic = { LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude-test' };
    expect(variableAtFault(() => loadLlmConfig(anthropic))).toBe('ANTHROPIC_API_KEY');
    expect(
      variableAtFault(() => loadLlmConfig({ LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k' })),
    ).toBe('LLM_MODEL');
    for (const timeout of ['0', '-1', '1.5', 'soon'])
      expect(
        variableAtFault(() => loadLlmConfig({ OPENAI_API_KEY: 'k', LLM_TIMEOUT_MS: timeout })),
      ).toBe('LLM_TIMEOUT_MS');
  });

  it('never prints an API key or a base URL password', () => {
    const error = errorOf(() =>
      loadLlmConfig({
        OPENAI_API_KEY: 'sk-secret-key',
        OPENAI_BASE_URL: 'https://u:secret@h:bad/v1',
      }),
    );
    expect(error.message).not.toContain('secret');
    const timeout = errorOf(() =>
      loadLlmConfig({ OPENAI_API_KEY: 'sk-secret-key', LLM_TIMEOUT_MS: 'x' }),
    );
    expect(timeout.message).not.toContain('sk-secret-key');
  });
});
