import type { MigrationDefinition } from '../../connections/migrations/migration-definition.js';

/**
 * The `agent_chat_append` procedure. `p_batch`: per message, id, role and body, each as a 10-digit
 * decimal byte length and the bytes (see MysqlChatMemoryStore); byte offsets into a binary string
 * make parsing linear in the batch size, where a JSON path per element would re-parse the document
 * every time. `'inline'` is the first version, which read the body from `p_batch` inside the INSERT:
 * MariaDB copies a LONGBLOB variable into every statement that names it, so each message copied the
 * whole batch (1,000 messages took about a second). `'variable'` reads the body into a variable
 * first (a SET does not copy), which keeps the procedure linear.
 */
function appendProcedure(body: 'inline' | 'variable'): string {
  const bodyVariable = body === 'variable' ? '\n      DECLARE v_body LONGTEXT;' : '';
  const bodyAssignment =
    body === 'variable'
      ? '\n          SET v_body = CONVERT(SUBSTRING(p_batch, v_body_at, v_body_length) USING utf8mb4);'
      : '';
  const bodyValue =
    body === 'variable'
      ? 'v_body'
      : 'CONVERT(SUBSTRING(p_batch, v_body_at, v_body_length) USING utf8mb4)';
  return `CREATE PROCEDURE agent_chat_append(
      IN p_conversation_id VARBINARY(255), IN p_batch LONGBLOB, IN p_expected BIGINT)
    BEGIN
      DECLARE v_version BIGINT;
      DECLARE v_end BIGINT DEFAULT LENGTH(p_batch);
      DECLARE v_pos BIGINT DEFAULT 1;
      DECLARE v_new INT DEFAULT 0;
      DECLARE v_length BIGINT;
      DECLARE v_id VARBINARY(255);
      DECLARE v_role VARBINARY(16);
      DECLARE v_body_at BIGINT;
      DECLARE v_body_length BIGINT;
      DECLARE v_conflict BOOLEAN DEFAULT FALSE;${bodyVariable}
      DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
      SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
      START TRANSACTION;
      INSERT INTO agent_chat_conversations (conversation_id, version) VALUES (p_conversation_id, 0)
        ON DUPLICATE KEY UPDATE version = version;
      SELECT version INTO v_version FROM agent_chat_conversations
        WHERE conversation_id = p_conversation_id FOR UPDATE;
      parse: WHILE v_pos <= v_end DO
        SET v_length = CAST(SUBSTRING(p_batch, v_pos, 10) AS UNSIGNED);
        SET v_id = SUBSTRING(p_batch, v_pos + 10, v_length);
        SET v_pos = v_pos + 10 + v_length;
        SET v_length = CAST(SUBSTRING(p_batch, v_pos, 10) AS UNSIGNED);
        SET v_role = SUBSTRING(p_batch, v_pos + 10, v_length);
        SET v_pos = v_pos + 10 + v_length;
        SET v_body_length = CAST(SUBSTRING(p_batch, v_pos, 10) AS UNSIGNED);
        SET v_body_at = v_pos + 10;
        SET v_pos = v_body_at + v_body_length;
        IF NOT EXISTS (SELECT 1 FROM agent_chat_messages
            WHERE conversation_id = p_conversation_id AND message_id = v_id) THEN
          -- The version is checked only once a message turns out to be new: a batch that is
          -- already stored is a no-op whatever its expected version.
          IF p_expected IS NOT NULL AND p_expected <> v_version THEN
            SET v_conflict = TRUE;
            LEAVE parse;
          END IF;
          SET v_new = v_new + 1;${bodyAssignment}
          INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES (
            p_conversation_id, v_version + v_new, v_id, CONVERT(v_role USING ascii), ${bodyValue});
        END IF;
      END WHILE parse;
      IF v_conflict THEN
        ROLLBACK;
        SELECT 1 AS conflict, v_version AS version;
      ELSE
        IF v_new > 0 THEN
          UPDATE agent_chat_conversations SET version = v_version + v_new
            WHERE conversation_id = p_conversation_id;
        END IF;
        COMMIT;
        SELECT 0 AS conflict, v_version + v_new AS version;
      END IF;
    END`;
}

/**
 * Chat memory on MariaDB ≥ 10.5 / MySQL 8. Ids are `VARBINARY` (byte-exact, no pad: `'c1'`, `'C1'`
 * and `'c1 '` stay distinct), contents `LONGTEXT`. `agent_chat_append` takes the whole batch as one
 * length-prefixed binary string: one round trip and one commit per `add`. Both procedures run their
 * transaction at READ COMMITTED: the conversation row's lock serializes writers, and plain reads
 * then see every committed message without taking gap locks that could deadlock neighbours.
 */
const chatMemory: MigrationDefinition = {
  name: 'ChatMemory1764460800000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_chat_conversations (
      conversation_id VARBINARY(255) NOT NULL,
      version BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (conversation_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS agent_chat_messages (
      conversation_id VARBINARY(255) NOT NULL,
      seq BIGINT NOT NULL,
      message_id VARBINARY(255) NOT NULL,
      role VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      body LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      PRIMARY KEY (conversation_id, seq),
      UNIQUE KEY uq_agent_chat_messages_message_id (conversation_id, message_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    'DROP PROCEDURE IF EXISTS agent_chat_append',
    appendProcedure('inline'),
    'DROP PROCEDURE IF EXISTS agent_chat_clear',
    `CREATE PROCEDURE agent_chat_clear(IN p_conversation_id VARBINARY(255))
    BEGIN
      DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
      SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
      START TRANSACTION;
      DELETE FROM agent_chat_conversations WHERE conversation_id = p_conversation_id;
      DELETE FROM agent_chat_messages WHERE conversation_id = p_conversation_id;
      COMMIT;
    END`,
  ],
  down: [
    'DROP PROCEDURE IF EXISTS agent_chat_clear',
    'DROP PROCEDURE IF EXISTS agent_chat_append',
    'DROP TABLE IF EXISTS agent_chat_messages',
    'DROP TABLE IF EXISTS agent_chat_conversations',
  ],
};

/** Re-creates `agent_chat_append` with the body read into a variable (linear in the batch). */
const chatAppendLinear: MigrationDefinition = {
  name: 'ChatAppendLinear1764720000000',
  up: ['DROP PROCEDURE IF EXISTS agent_chat_append', appendProcedure('variable')],
  down: ['DROP PROCEDURE IF EXISTS agent_chat_append', appendProcedure('inline')],
};

/** This feature's mysql migrations, oldest first. */
export const CHAT_MEMORY_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [
  chatMemory,
  chatAppendLinear,
];
