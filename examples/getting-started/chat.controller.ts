// examples/getting-started/chat.controller.ts
import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { AgentService, type ChatMemoryStore, InjectChatMemoryStore } from 'nest-agent-memory';

@Controller('chats')
export class ChatController {
  constructor(
    private readonly agent: AgentService,
    @InjectChatMemoryStore() private readonly store: ChatMemoryStore,
  ) {}

  /** One turn: the user's message and the model's reply are stored together, or not at all. */
  @Post(':id')
  async send(@Param('id') id: string, @Body() body: { message: string }) {
    const result = await this.agent.run({ conversationId: id, message: body.message });
    return { reply: result.reply.content, version: result.version };
  }

  /** The conversation's newest 20 messages, oldest first. */
  @Get(':id')
  history(@Param('id') id: string) {
    return this.store.tail(id, 20);
  }
}
