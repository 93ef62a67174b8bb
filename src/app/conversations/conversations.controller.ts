import {
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  ParseIntPipe,
  Query,
} from '@nestjs/common';
import {
  type ChatMemoryStore,
  InjectChatMemoryStore,
  type StoredChatMessage,
} from 'nest-agent-memory';

/** `GET /conversations/:conversationId/messages` body. */
export interface ConversationMessagesResponse {
  conversationId: string;
  /** The full count of stored messages, whatever `last` returned. */
  version: number;
  messages: StoredChatMessage[];
}

/** Reads and clears conversation history. */
@Controller('conversations')
export class ConversationsController {
  constructor(@InjectChatMemoryStore() private readonly store: ChatMemoryStore) {}

  /** The conversation's messages, oldest first; with `?last=N`, only the newest N. */
  @Get(':conversationId/messages')
  async messages(
    @Param('conversationId') conversationId: string,
    @Query('last', new ParseIntPipe({ optional: true })) last?: number,
  ): Promise<ConversationMessagesResponse> {
    if (last === undefined) {
      const messages = await this.store.get(conversationId);
      return { conversationId, version: messages.length, messages };
    }
    const [messages, version] = await Promise.all([
      this.store.tail(conversationId, last),
      this.store.version(conversationId),
    ]);
    return { conversationId, version, messages };
  }

  /** Deletes the conversation's history. */
  @Delete(':conversationId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async clear(@Param('conversationId') conversationId: string): Promise<void> {
    await this.store.clear(conversationId);
  }
}
