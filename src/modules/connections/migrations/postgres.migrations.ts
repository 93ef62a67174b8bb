import type { MigrationDefinition } from './migration-definition.js';

/**
 * Chat memory on PostgreSQL. A conversation row holds the version (the count of stored messages);
 * `agent_chat_append` locks it, skips ids already stored, checks `expectedVersion` and inserts the
 * batch: one round trip and one commit per `add`. `agent_chat_clear` takes the same lock, so a clear
 * never leaves messages behind a conversation row it removed. `COLLATE "C"` keeps id comparison and
 * ordering by byte.
 */
const chatMemory: MigrationDefinition = {
  name: 'ChatMemory1764460800000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_chat_conversations (
      conversation_id text COLLATE "C" NOT NULL,
      version bigint NOT NULL DEFAULT 0,
      CONSTRAINT pk_agent_chat_conversations PRIMARY KEY (conversation_id)
    )`,
    `CREATE TABLE IF NOT EXISTS agent_chat_messages (
      conversation_id text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      message_id text COLLATE "C" NOT NULL,
      role varchar(16) NOT NULL,
      body text NOT NULL,
      CONSTRAINT pk_agent_chat_messages PRIMARY KEY (conversation_id, seq),
      CONSTRAINT uq_agent_chat_messages_message_id UNIQUE (conversation_id, message_id)
    )`,
    `CREATE OR REPLACE FUNCTION agent_chat_append(
      p_conversation_id text, p_ids text[], p_roles text[], p_bodies text[], p_expected bigint
    ) RETURNS TABLE (out_conflict boolean, out_version bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_version bigint;
      v_count bigint;
    BEGIN
      INSERT INTO agent_chat_conversations (conversation_id, version)
        VALUES (p_conversation_id, 0) ON CONFLICT (conversation_id) DO NOTHING;
      SELECT c.version INTO v_version FROM agent_chat_conversations c
        WHERE c.conversation_id = p_conversation_id FOR UPDATE;
      IF p_expected IS NULL OR p_expected = v_version THEN
        INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body)
          SELECT p_conversation_id, v_version + row_number() OVER (ORDER BY t.ord), t.id, t.role, t.body
          FROM unnest(p_ids, p_roles, p_bodies) WITH ORDINALITY AS t(id, role, body, ord)
          WHERE NOT EXISTS (SELECT 1 FROM agent_chat_messages m
            WHERE m.conversation_id = p_conversation_id AND m.message_id = t.id);
        GET DIAGNOSTICS v_count = ROW_COUNT;
        IF v_count > 0 THEN
          UPDATE agent_chat_conversations SET version = v_version + v_count
            WHERE conversation_id = p_conversation_id;
        END IF;
        RETURN QUERY SELECT false, v_version + v_count;
      ELSE
        RETURN QUERY SELECT EXISTS (SELECT 1 FROM unnest(p_ids) AS t(id)
          WHERE NOT EXISTS (SELECT 1 FROM agent_chat_messages m
            WHERE m.conversation_id = p_conversation_id AND m.message_id = t.id)), v_version;
      END IF;
    END
    $fn$`,
    `CREATE OR REPLACE FUNCTION agent_chat_clear(p_conversation_id text) RETURNS void
    LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM 1 FROM agent_chat_conversations WHERE conversation_id = p_conversation_id FOR UPDATE;
      DELETE FROM agent_chat_messages WHERE conversation_id = p_conversation_id;
      DELETE FROM agent_chat_conversations WHERE conversation_id = p_conversation_id;
    END
    $fn$`,
  ],
  down: [
    'DROP FUNCTION IF EXISTS agent_chat_clear(text)',
    'DROP FUNCTION IF EXISTS agent_chat_append(text, text[], text[], text[], bigint)',
    'DROP TABLE IF EXISTS agent_chat_messages',
    'DROP TABLE IF EXISTS agent_chat_conversations',
  ],
};

/** The package's PostgreSQL migrations, oldest first. */
export const POSTGRES_MIGRATIONS: readonly MigrationDefinition[] = [chatMemory];
