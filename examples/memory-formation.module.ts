// examples/memory-formation.module.ts
import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import {
  AgentModule,
  AgentService,
  ChatMemoryModule,
  type FormedMemory,
  FormedMemories,
  LongtermMemoryModule,
  LongtermMemoryService,
} from 'nest-agent-memory';

/** Your own routes: a person's turns, and their formed memories with where each came from. */
@Controller('people/:personId')
export class PeopleFactsController {
  private readonly memories: FormedMemories;

  constructor(
    private readonly agent: AgentService,
    longterm: LongtermMemoryService,
  ) {
    this.memories = new FormedMemories(longterm);
  }

  /** A turn with the person as its entity: memories are formed from it after it commits. */
  @Post('conversations/:conversationId')
  async say(
    @Param('personId') personId: string,
    @Param('conversationId') conversationId: string,
    @Body() body: { message: string },
  ) {
    const result = await this.agent.run({
      conversationId,
      entityId: personId,
      message: body.message,
    });
    return { reply: result.reply.content };
  }

  /** What holds now. */
  @Get('facts')
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
