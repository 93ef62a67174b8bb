// examples/recall.module.ts
import { Controller, Get, Module, Param, Query } from '@nestjs/common';
import {
  AgentModule,
  ChatMemoryModule,
  HashingEmbeddingModel,
  LongtermMemoryModule,
  LongtermMemoryService,
  type RecordRecallHit,
} from 'nest-agent-memory';

/** Your own route over recall: an entity's records that best match some words. */
@Controller('people/:personId/recall')
export class PeopleRecallController {
  constructor(private readonly longterm: LongtermMemoryService) {}

  @Get()
  recall(@Param('personId') personId: string, @Query('q') q: string): Promise<RecordRecallHit[]> {
    return this.longterm.recall(personId, q, { k: 5, filter: { prefix: 'facts/' } });
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: './data/recall.sqlite' }),
    LongtermMemoryModule.forRoot({
      uri: 'sqlite:./data/recall.sqlite',
      // The vector list. HashingEmbeddingModel is offline and NOT semantic (tests, demos); in
      // production give any AI SDK embedding model, e.g. openai.embedding('text-embedding-3-small'),
      // or { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' }.
      recall: { embedder: new HashingEmbeddingModel() },
    }),
    AgentModule.forRoot({
      llm: { provider: 'echo' },
      // Before the model call: the person's best-matching records, and what they said in their
      // other conversations (messages: true indexes every turn), as a delimited system block.
      recall: { k: 5, maxTokens: 800, messages: true },
    }),
  ],
  controllers: [PeopleRecallController],
})
export class RecallModule {}
