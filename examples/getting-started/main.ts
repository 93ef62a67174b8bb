// examples/getting-started/main.ts
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AgentMemoryExceptionFilter } from 'nest-agent-memory';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// Bad input to the library (an empty message, say) answers 400 with what is wrong.
app.useGlobalFilters(new AgentMemoryExceptionFilter());
const port = Number(process.env.PORT) || 3000;
await app.listen(port);
console.log(`Listening on http://localhost:${port}`);
