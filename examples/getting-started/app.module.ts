// examples/getting-started/app.module.ts
import { Module } from '@nestjs/common';
import { AgentModule, ChatMemoryModule } from 'nest-agent-memory';
import { ChatController } from './chat.controller.js';

@Module({
  imports: [
    // Conversations in a SQLite file (the tables are created at the first start).
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: 'chat.sqlite' }),
    // The agent: the offline echo model for now; { provider: 'openai', model: 'gpt-4o-mini' } later.
    AgentModule.forRoot({ llm: { provider: 'echo' } }),
  ],
  controllers: [ChatController],
})
export class AppModule {}
