// Boots the built library with some drivers "uninstalled" (see block-packages.hooks.mjs) and prints
// what happened as JSON on its last line.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CHAT_MEMORY_STORE, ChatMemoryModule, MissingDriverError } from '../../dist/index.js';

const outcomes = {};
for (const [label, options] of Object.entries(JSON.parse(process.argv[2]))) {
  try {
    const app = await NestFactory.createApplicationContext(ChatMemoryModule.forRoot(options), {
      logger: false,
      abortOnError: false,
    });
    const store = app.get(CHAT_MEMORY_STORE);
    await store.add(`optional-drivers-${Date.now()}`, [{ role: 'user', content: 'hi' }]);
    await app.close();
    outcomes[label] = 'ok';
  } catch (error) {
    outcomes[label] =
      error instanceof MissingDriverError
        ? `missing ${error.packageNames.join(' ')}`
        : `error ${error}`;
  }
}
console.log(`\n${JSON.stringify(outcomes)}`);
