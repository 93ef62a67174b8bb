// examples/entity-profile.module.ts
import { Controller, Get, Module, NotFoundException, Param } from '@nestjs/common';
import {
  AgentModule,
  AgentService,
  ChatMemoryModule,
  LongtermMemoryModule,
} from 'nest-agent-memory';

/** The profile's JSON Schema: any object schema Ajv compiles (with zod 4: z.toJSONSchema(…)). */
const PERSON = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 100 },
    city: { type: 'string', maxLength: 100 },
    employer: { type: 'string', maxLength: 100 },
  },
};

/** Your own route over a person's profile: what is known of them, across conversations. */
@Controller('people/:personId/profile')
export class PersonProfileController {
  constructor(private readonly agent: AgentService) {}

  @Get()
  async profile(@Param('personId') personId: string): Promise<Record<string, unknown>> {
    const profile = await this.agent.profiles?.get(personId);
    if (!profile) throw new NotFoundException(`No profile of ${personId} yet`);
    return profile.document;
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: './data/profile.sqlite' }),
    LongtermMemoryModule.forRoot({ uri: 'sqlite:./data/profile.sqlite' }),
    AgentModule.forRoot({
      llm: { provider: 'echo' },
      // The demo model fills name, city and employer; a real model fills whatever the schema holds.
      formation: {
        model: 'plain-statements',
        profile: { schema: PERSON, maxBytes: 4_096, maxPromptTokens: 300 },
      },
      // The profile is the first line of each turn's recall block.
      recall: true,
    }),
  ],
  controllers: [PersonProfileController],
})
export class EntityProfileModule {}
