// examples/transcripts.module.ts
import { Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import {
  type ChatMemoryStore,
  ChatMemoryModule,
  InjectChatMemoryStore,
  type StoredChatMessage,
} from 'nest-agent-memory';

/** Records what users say and reads back recent history. */
@Injectable()
export class TranscriptService {
  constructor(
    @InjectChatMemoryStore() private readonly history: ChatMemoryStore,
    @InjectChatMemoryStore('audit') private readonly audit: ChatMemoryStore,
  ) {}

  /** Appends one user message; resolves with the conversation's new version. */
  async record(conversationId: string, text: string): Promise<number> {
    const { version, ids } = await this.history.add(conversationId, [
      { role: 'user', content: text },
    ]);
    await this.audit.add(conversationId, [{ id: ids[0], role: 'user', content: text }]);
    return version;
  }

  /** The newest 20 messages, oldest first. */
  recent(conversationId: string): Promise<StoredChatMessage[]> {
    return this.history.tail(conversationId, 20);
  }
}

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    // The default store: PostgreSQL, URL from the environment (migrations run at start).
    ChatMemoryModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        backend: 'postgres',
        url: config.getOrThrow<string>('DATABASE_URL'),
      }),
    }),
    // A second, named store on Redis.
    ChatMemoryModule.forRoot({ backend: 'redis', url: 'redis://127.0.0.1:6379', name: 'audit' }),
  ],
  providers: [TranscriptService],
  exports: [TranscriptService],
})
export class TranscriptsModule {}
