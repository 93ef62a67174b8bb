import { describe, expect, it } from '@jest/globals';
import { rejectionOf } from '../testing/conformance-hooks.js';
import { MissingDriverError } from './errors/missing-driver.error.js';
import { loadOptionalDependency } from './load-optional-dependency.js';

describe('loadOptionalDependency', () => {
  it('loads an installed package', async () => {
    const pg = await loadOptionalDependency<{ default: { Pool: unknown } }>(
      'pg',
      'the postgres backend',
    );
    expect(typeof pg.default.Pool).toBe('function');
  });

  it('names the missing package and what needs it', async () => {
    const error = await rejectionOf(
      loadOptionalDependency('agent-memory-no-such-driver', 'the test backend'),
    );
    expect(error).toBeInstanceOf(MissingDriverError);
    expect((error as Error).message).toContain('npm install agent-memory-no-such-driver');
    expect((error as Error).message).toContain('the test backend');
  });

  it('loads two packages that share a dependency when asked at once (as two providers at boot)', async () => {
    // In Jest's ESM loader on Node 22, two such imports at once failed: one import at a time.
    const loaded = await Promise.allSettled([
      loadOptionalDependency('@ai-sdk/anthropic', 'the anthropic provider'),
      loadOptionalDependency('@ai-sdk/openai', 'the openai provider'),
    ]);
    expect(loaded.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
  });
});
