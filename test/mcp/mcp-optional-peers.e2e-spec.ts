import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Imports a built entry point where `blocked` packages cannot be resolved; resolves its exports. */
async function exportsWithout(entry: string, blocked: string[]): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      './test/support/block-packages.register.mjs',
      '--input-type=module',
      '-e',
      `const m = await import('./${entry}'); console.log(JSON.stringify(Object.keys(m)));`,
    ],
    { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', BLOCKED_PACKAGES: blocked.join(',') } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('nest-agent-memory/mcp and its optional peers (on the built package)', () => {
  it('loads without the HTTP API’s peers (@nestjs/swagger, class-validator, class-transformer)', async () => {
    const names = await exportsWithout('dist/modules/mcp/index.js', [
      '@nestjs/swagger',
      'class-validator',
      'class-transformer',
    ]);
    expect(names).toContain('AgentMemoryMcpModule');
  });

  it('keeps the root entry point free of the SDK and zod, and names the SDK when it is missing', async () => {
    const names = await exportsWithout('dist/index.js', ['@modelcontextprotocol/sdk', 'zod']);
    expect(names).toContain('LongtermMemoryModule');
    await expect(
      exportsWithout('dist/modules/mcp/index.js', ['@modelcontextprotocol/sdk']),
    ).rejects.toThrow(/@modelcontextprotocol\/sdk/);
  });
});
