import { createHash } from 'node:crypto';

/**
 * An entity's tag in the MariaDB full-text index: the first 8 hex digits of the MD5 of its id's
 * UTF-8 bytes — what `LEFT(MD5(entity_id), 8)` gives in SQL, so a migration can tag stored rows.
 * Two entities may share a tag (their searches then also read each other's postings); every search
 * still filters by the entity's id, so they never see each other's rows.
 */
export function entityTag(entityId: string): string {
  return createHash('md5').update(entityId, 'utf8').digest('hex').slice(0, 8);
}
