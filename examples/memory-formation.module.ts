// examples/memory-formation.module.ts
import { Controller, Get, Module, Param } from '@nestjs/common';
import {
  AgentModule,
  ChatMemoryModule,
  type FormedMemory,
  FormedMemories,
  LongtermMemoryModule,
  LongtermMemoryService,
} from 'nest-agent-memory';

/** Your own route over a person's formed memories: what holds now, with where it came from. */
@Controller('people/:personId/facts')
export class PeopleFactsController {
  private readonly memories: FormedMemories;

  constructor(longterm: LongtermMemoryService) {
    this.memories = new FormedMemories(longterm);
  }

  @Get()
  async facts(@Param('personId') personId: string): Promise<FormedMemory[]> {
    return (await this.memories.list(personId, { limit: 50 })).memories;
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: './data/formation.sqlite' }),
    LongtermMemoryModule.forRoot({ uri: 'sqlite:./data/formation.sqlite' }),
    AgentModule.forRoot({
      // The offline echo model answers; the offline demo model forms the memories. With a real
      // model, leave `model` out (the agent's own) or name a cheaper one: { provider, model }.
      llm: { provider: 'echo' },
      formation: { model: 'plain-statements', kinds: ['fact', 'preference'] },
      // Later turns get the formed memories, with their ids, in the recall block.
      recall: true,
    }),
  ],
  controllers: [PeopleFactsController],
})
export class MemoryFormationModule {}
