import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, type INestApplication, Param, Post } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  AgentMemoryExceptionFilter,
  type ChatMemoryStore,
  ChatMemoryModule,
  InjectChatMemoryStore,
} from 'nest-agent-memory';

/** A user's own controller: it hands the request body to the library as it came. */
@Controller('notes')
class NotesController {
  constructor(@InjectChatMemoryStore() private readonly store: ChatMemoryStore) {}

  @Post(':conversationId')
  async add(@Param('conversationId') conversationId: string, @Body() body: { messages: never }) {
    return this.store.add(conversationId, body.messages);
  }
}

describe("the exported exception filter in a user's own app", () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ChatMemoryModule.forRoot({ backend: 'memory' })],
      controllers: [NotesController],
      providers: [{ provide: APP_FILTER, useClass: AgentMemoryExceptionFilter }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('answers 400 with a clean message to bad input given to a library method', async () => {
    const post = async (body: unknown) =>
      fetch(`${await app.getUrl()}/notes/c1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const cases: Array<[unknown, string]> = [
      [
        { messages: [{ role: 'user' }] },
        'Invalid messages[0].content: must be a string, an array of parts or null, got nothing (undefined)',
      ],
      [{}, 'Invalid messages: must be an array, got nothing (undefined)'],
      [
        { messages: [{ role: 'robot', content: 'x' }] },
        'Invalid messages[0].role: must be one of system, user, assistant, tool, got "robot"',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await (await post(body)).json();
      expect(response).toEqual({ statusCode: 400, error: 'Bad Request', message });
    }
    const ok = (await (await post({ messages: [{ role: 'user', content: 'ok' }] })).json()) as {
      version: number;
    };
    expect(ok.version).toBe(1);
  });
});
