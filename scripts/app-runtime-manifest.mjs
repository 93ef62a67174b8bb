/**
 * Writes the example app's runtime manifest (`<dir>/package.json`): the library's own package.json
 * (name and `exports`, so `import 'nest-agent-memory'` resolves to `dist/`) with, as dependencies,
 * exactly what the built app loads at run time — the versions installed here, pinned. The Docker
 * image installs only these (`npm install --omit=dev`): no test, lint or build tools.
 * Usage: node scripts/app-runtime-manifest.mjs <dir>
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RUNTIME = [
  // Nest and the app's modules
  '@nestjs/common',
  '@nestjs/core',
  // Both HTTP platforms (HTTP_ADAPTER: Fastify by default, or Express), with what each serves with
  '@nestjs/platform-fastify',
  '@fastify/static',
  '@nestjs/platform-express',
  '@nestjs/config',
  '@nestjs/swagger',
  '@nestjs/terminus',
  '@nestjs/throttler',
  '@nestjs/typeorm',
  'class-validator',
  'class-transformer',
  'pino',
  'reflect-metadata',
  'rxjs',
  '@bull-board/api',
  '@bull-board/express',
  '@bull-board/fastify',
  'helmet',
  // The memory MCP server the app mounts at /mcp
  '@modelcontextprotocol/sdk',
  // The model providers LLM_PROVIDER can name
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  '@ai-sdk/openai-compatible',
  'zod',
  // The default memory policy's token counts (AGENT_MEMORY_MAX_TOKENS)
  'gpt-tokenizer',
  // The drivers of every backend the app can be configured with (the library's own dependencies
  // are added from its package.json below)
  'typeorm',
  'better-sqlite3',
  'pg',
  'mysql2',
  'ioredis',
  'bull',
  // Traces and metrics
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  'prom-client',
];

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/app-runtime-manifest.mjs <dir>');
const own = JSON.parse(readFileSync('package.json', 'utf8'));
const version = (name) =>
  JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')).version;
const manifest = {
  name: own.name,
  version: own.version,
  private: true,
  type: own.type,
  exports: own.exports,
  engines: own.engines,
  allowScripts: own.allowScripts,
  dependencies: Object.fromEntries(
    [...Object.keys(own.dependencies ?? {}), ...RUNTIME].map((name) => [name, version(name)]),
  ),
};
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
