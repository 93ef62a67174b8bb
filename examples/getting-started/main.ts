// examples/getting-started/main.ts
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AgentMemoryExceptionFilter } from 'nest-agent-memory';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// Bad input to the library (an empty message, say) answers 400 with what is wrong.
app.useGlobalFilters(new AgentMemoryExceptionFilter());
// This machine only, unless HOST says otherwise (HOST=0.0.0.0 in a container).
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT) || 3000;
await app.listen(port, host);
console.log(`Listening on http://${host}:${port}`);
