import type { MigrationDefinition } from '../../connections/migrations/migration-definition.js';

/** `agent_chat_append` as the first migration created it (and the second one's `down` restores). */
const FIRST_APPEND = `CREATE OR REPLACE FUNCTION agent_chat_append(
      p_conversation_id text, p_ids text[], p_roles text[], p_bodies text[], p_expected bigint,
      OUT out_conflict boolean, OUT out_version bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_base bigint;
    BEGIN
      PERFORM agent_chat_lock(p_conversation_id);
      SELECT coalesce(max(m.seq), 0) INTO v_base FROM agent_chat_messages m
        WHERE m.conversation_id = p_conversation_id;
      out_version := v_base;
      out_conflict := false;
      FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        PERFORM FROM agent_chat_messages m
          WHERE m.conversation_id = p_conversation_id AND m.message_id = p_ids[i];
        CONTINUE WHEN FOUND;
        -- The version is checked only once a message turns out to be new: a batch that is
        -- already stored is a no-op whatever its expected version. Nothing is written before.
        IF p_expected IS NOT NULL AND p_expected <> v_base THEN
          out_conflict := true;
          RETURN;
        END IF;
        out_version := out_version + 1;
        INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body)
          VALUES (p_conversation_id, out_version, p_ids[i], p_roles[i], p_bodies[i]);
      END LOOP;
    END
    $fn$`;

/**
 * Chat memory on PostgreSQL: one table, keyed `(conversation_id, seq)`; a conversation's version is
 * its highest `seq` (an index-only backward scan). `agent_chat_append` serializes the writers of one
 * conversation with a transaction-scoped advisory lock (in memory: no row to lock, rewrite and
 * WAL-log), then checks each id, the expected version, and inserts: one round trip and one commit
 * per `add`. `agent_chat_clear` takes the same lock. `COLLATE "C"` keeps id comparison and ordering
 * by byte.
 */
const chatMemory: MigrationDefinition = {
  name: 'ChatMemory1764460800000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_chat_messages (
      conversation_id text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      message_id text COLLATE "C" NOT NULL,
      role varchar(16) NOT NULL,
      body text NOT NULL,
      CONSTRAINT pk_agent_chat_messages PRIMARY KEY (conversation_id, seq),
      CONSTRAINT uq_agent_chat_messages_message_id UNIQUE (conversation_id, message_id)
    )`,
    // The lock key: a fixed class id for the package, and the conversation id's 32-bit hash (two
    // conversations that collide only wait for each other; correctness never depends on the hash).
    `CREATE OR REPLACE FUNCTION agent_chat_lock(p_conversation_id text) RETURNS void
    LANGUAGE sql AS $fn$
      SELECT pg_advisory_xact_lock(1634889071, hashtext(p_conversation_id))
    $fn$`,
    FIRST_APPEND,
    `CREATE OR REPLACE FUNCTION agent_chat_clear(p_conversation_id text) RETURNS void
    LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM agent_chat_lock(p_conversation_id);
      DELETE FROM agent_chat_messages WHERE conversation_id = p_conversation_id;
    END
    $fn$`,
  ],
  down: [
    'DROP FUNCTION IF EXISTS agent_chat_clear(text)',
    'DROP FUNCTION IF EXISTS agent_chat_append(text, text[], text[], text[], bigint)',
    'DROP FUNCTION IF EXISTS agent_chat_lock(text)',
    'DROP TABLE IF EXISTS agent_chat_messages',
  ],
};

/**
 * `agent_chat_append`, cheaper per message with the same contract: the lock is taken inline, and a
 * new message is claimed by its insert (`ON CONFLICT (conversation_id, message_id) DO NOTHING`:
 * the unique index answers the probe the insert makes anyway) instead of a probe statement before
 * it. Ids are probed apart only when the expected version does not match, to tell a conflict (a
 * message is new) from a no-op (all are stored). Nothing is written before that decision.
 */
const chatAppendOnConflict: MigrationDefinition = {
  name: 'ChatAppendOnConflict1796169600000',
  up: [
    `CREATE OR REPLACE FUNCTION agent_chat_append(
      p_conversation_id text, p_ids text[], p_roles text[], p_bodies text[], p_expected bigint,
      OUT out_conflict boolean, OUT out_version bigint)
    LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM pg_advisory_xact_lock(1634889071, hashtext(p_conversation_id));
      SELECT coalesce(max(m.seq), 0) INTO out_version FROM agent_chat_messages m
        WHERE m.conversation_id = p_conversation_id;
      out_conflict := false;
      IF p_expected IS NOT NULL AND p_expected <> out_version THEN
        out_conflict := EXISTS (SELECT FROM unnest(p_ids) AS n(id) WHERE NOT EXISTS (
          SELECT FROM agent_chat_messages m
          WHERE m.conversation_id = p_conversation_id AND m.message_id = n.id));
        RETURN;
      END IF;
      FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body)
          VALUES (p_conversation_id, out_version + 1, p_ids[i], p_roles[i], p_bodies[i])
          ON CONFLICT (conversation_id, message_id) DO NOTHING;
        IF FOUND THEN
          out_version := out_version + 1;
        END IF;
      END LOOP;
    END
    $fn$`,
  ],
  down: [FIRST_APPEND],
};

/**
 * `agent_chat_append_group`: several callers' batches for one conversation in one call (one round
 * trip, one commit, the lock taken once), as the store coalesces concurrent `add`s in a process.
 * Batch `b` is `p_sizes[b]` consecutive entries of the id, role and body arrays, with its own
 * expected version `p_expected[b]` (NULL: none); each is applied exactly as `agent_chat_append`
 * would apply it alone at its turn — an id stored by an earlier batch of the group counts as stored
 * — and gets its own conflict flag and version.
 */
const chatAppendGroup: MigrationDefinition = {
  name: 'ChatAppendGroup1796947200000',
  up: [
    `CREATE OR REPLACE FUNCTION agent_chat_append_group(
      p_conversation_id text, p_sizes int[], p_expected bigint[], p_ids text[], p_roles text[],
      p_bodies text[], OUT out_conflicts boolean[], OUT out_versions bigint[])
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_version bigint;
      v_first int := 1;
      v_last int;
      v_conflict boolean;
    BEGIN
      PERFORM pg_advisory_xact_lock(1634889071, hashtext(p_conversation_id));
      SELECT coalesce(max(m.seq), 0) INTO v_version FROM agent_chat_messages m
        WHERE m.conversation_id = p_conversation_id;
      out_conflicts := '{}';
      out_versions := '{}';
      FOR b IN 1 .. coalesce(array_length(p_sizes, 1), 0) LOOP
        v_last := v_first + p_sizes[b] - 1;
        v_conflict := false;
        IF p_expected[b] IS NOT NULL AND p_expected[b] <> v_version THEN
          v_conflict := EXISTS (SELECT FROM unnest(p_ids[v_first:v_last]) AS n(id)
            WHERE NOT EXISTS (SELECT FROM agent_chat_messages m
              WHERE m.conversation_id = p_conversation_id AND m.message_id = n.id));
        ELSE
          FOR i IN v_first .. v_last LOOP
            INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body)
              VALUES (p_conversation_id, v_version + 1, p_ids[i], p_roles[i], p_bodies[i])
              ON CONFLICT (conversation_id, message_id) DO NOTHING;
            IF FOUND THEN
              v_version := v_version + 1;
            END IF;
          END LOOP;
        END IF;
        out_conflicts := out_conflicts || v_conflict;
        out_versions := out_versions || v_version;
        v_first := v_last + 1;
      END LOOP;
    END
    $fn$`,
  ],
  down: [
    'DROP FUNCTION IF EXISTS agent_chat_append_group(text, int[], bigint[], text[], text[], text[])',
  ],
};

/** This feature's postgres migrations, oldest first. */
export const CHAT_MEMORY_POSTGRES_MIGRATIONS: readonly MigrationDefinition[] = [
  chatMemory,
  chatAppendOnConflict,
  chatAppendGroup,
];
