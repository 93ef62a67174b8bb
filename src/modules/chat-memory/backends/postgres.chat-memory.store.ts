import type { DataSource } from 'typeorm';
import type { PreparedMessage } from '../validation/prepared-message.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

/**
 * PostgreSQL backend. `add` is one call of the `agent_chat_append` function (one round trip, one
 * commit); reads use the `(conversation_id, seq)` primary key, so `tail` and `range` read only what
 * they return. Hand-written SQL, so it also works on a user's DataSource that does not know the
 * package's entities.
 */
export class PostgresChatMemoryStore extends BaseChatMemoryStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    const [row] = (await this.dataSource.query(
      'SELECT out_conflict, out_version FROM agent_chat_append($1, $2, $3, $4, $5)',
      [
        conversationId,
        messages.map((message) => message.id),
        messages.map((message) => message.role),
        messages.map((message) => message.json),
        expectedVersion ?? null,
      ],
    )) as Array<{ out_conflict: boolean; out_version: string }>;
    return { conflict: row!.out_conflict, version: Number(row!.out_version) };
  }

  protected async readAll(conversationId: string): Promise<string[]> {
    return bodies(
      await this.dataSource.query(
        'SELECT body FROM agent_chat_messages WHERE conversation_id = $1 ORDER BY seq',
        [conversationId],
      ),
    );
  }

  protected async readTail(conversationId: string, n: number): Promise<string[]> {
    const newestFirst = bodies(
      await this.dataSource.query(
        'SELECT body FROM agent_chat_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2',
        [conversationId, n],
      ),
    );
    return newestFirst.reverse();
  }

  protected async readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return bodies(
      await this.dataSource.query(
        'SELECT body FROM agent_chat_messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [conversationId, fromVersion, limit],
      ),
    );
  }

  protected async readVersion(conversationId: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      'SELECT version FROM agent_chat_conversations WHERE conversation_id = $1',
      [conversationId],
    )) as Array<{ version: string }>;
    return row ? Number(row.version) : 0;
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    await this.dataSource.query('SELECT agent_chat_clear($1)', [conversationId]);
  }
}

function bodies(rows: Array<{ body: string }>): string[] {
  return rows.map((row) => row.body);
}
