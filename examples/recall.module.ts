// examples/recall.module.ts
import { Body, Controller, Get, Module, Param, Put, Query } from '@nestjs/common';
import {
  AgentModule,
  ChatMemoryModule,
  HashingEmbeddingModel,
  LongtermMemoryModule,
  LongtermMemoryService,
  type RecordRecallHit,
} from 'nest-agent-memory';

/** Your own routes: a person's facts saved by name, and recalled by their words. */
@Controller('people/:personId')
export class PeopleRecallController {
  constructor(private readonly longterm: LongtermMemoryService) {}

  /** Saves a fact; the entity's next seq, so it wins over any older write of the same key. */
  @Put('facts/:name')
  async save(
    @Param('personId') personId: string,
    @Param('name') name: string,
    @Body() body: { value: string },
  ) {
    const seq = await this.longterm.nextSeq(personId);
    return this.longterm.save({ entityId: personId, key: `facts/${name}`, value: body.value, seq });
  }

  /** The person's facts that best match `q`. */
  @Get('recall')
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
      // other conversations (messages: true indexes every turn), as a delimited block before the
      // user's message (a user-role message: recalled text never gets the system prompt's standing).
      recall: { k: 5, maxTokens: 800, messages: true },
    }),
  ],
  controllers: [PeopleRecallController],
})
export class RecallModule {}
