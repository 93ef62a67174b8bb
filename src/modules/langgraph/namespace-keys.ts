import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { isDerivedEntity } from '../longterm/recall/message-index.js';
import { containsNul, exceedsUtf8Bytes, hasLoneSurrogate } from '../../common/utf8.js';
import { MAX_LONGTERM_KEY_BYTES } from '../longterm/interfaces/longterm-store.interface.js';
import { assertEntityId, assertKey } from '../longterm/validation/longterm-arguments.js';

/**
 * How a LangGraph store namespace and key become a long-term record's entity and key, and back.
 *
 * The first `entityParts` parts of the namespace name the entity (one part as is; several, or none
 * — then the store's own entity id —, length-prefixed). The remaining parts are written
 * length-prefixed (`<length>:<part>`, the length in UTF-16 units), then `|`, then the item's key:
 * after a part comes either a digit or `|`, so the layout is reversible and no two namespaces or
 * keys collide, whatever their parts hold; and a namespace prefix is a key prefix, so `search` by
 * namespace prefix is a prefix range scan.
 */
export class NamespaceKeys {
  constructor(
    private readonly entityParts: number,
    private readonly defaultEntity: string,
  ) {}

  /** The record's entity and key of an item. */
  recordOf(namespace: readonly string[], key: string): { entityId: string; key: string } {
    if (typeof key !== 'string' || key === '')
      throw new InvalidArgumentError('key', 'must be a non-empty string');
    const { entityId, rest } = this.split(namespace, 'namespace');
    const recordKey = `${encodeParts(rest)}|${key}`;
    // The record key holds the namespace's other parts and the key: their bytes count together.
    assertKey(recordKey, 'namespace and key');
    return { entityId, key: recordKey };
  }

  /** The entity and the record key prefix of every item under a namespace prefix. */
  prefixOf(namespacePrefix: readonly string[]): { entityId: string; prefix: string } {
    const { entityId, rest } = this.split(namespacePrefix, 'namespacePrefix');
    return { entityId, prefix: encodeParts(rest) };
  }

  /** The namespace and key a record stands for; `undefined` for a key this layout did not write. */
  itemOf(entityId: string, recordKey: string): { namespace: string[]; key: string } | undefined {
    const rest: string[] = [];
    let at = 0;
    while (at < recordKey.length && recordKey[at] !== '|') {
      const colon = recordKey.indexOf(':', at);
      const length = Number(recordKey.slice(at, colon));
      if (colon < 0 || !Number.isInteger(length) || length < 1) return undefined;
      rest.push(recordKey.slice(colon + 1, colon + 1 + length));
      at = colon + 1 + length;
    }
    if (at >= recordKey.length) return undefined;
    return {
      namespace: [...this.entityNamespace(entityId), ...rest],
      key: recordKey.slice(at + 1),
    };
  }

  /** The leading namespace parts an entity id stands for. */
  private entityNamespace(entityId: string): string[] {
    if (this.entityParts === 0) return [];
    if (this.entityParts === 1) return [entityId];
    return this.itemOf('', `${entityId}|`)?.namespace ?? [];
  }

  private split(namespace: readonly string[], argument: string) {
    if (
      !Array.isArray(namespace) ||
      namespace.some((part) => typeof part !== 'string' || part === '')
    )
      throw new InvalidArgumentError(argument, 'must be an array of non-empty strings');
    if (namespace.length < this.entityParts)
      throw new InvalidArgumentError(
        argument,
        `must have at least ${this.entityParts} part(s): the first ${this.entityParts} name the entity, and one store call never spans entities`,
      );
    const head = namespace.slice(0, this.entityParts);
    const entityId =
      this.entityParts === 0
        ? this.defaultEntity
        : this.entityParts === 1
          ? head[0]!
          : encodeParts(head);
    assertEntityId(entityId, `${argument} (the part(s) naming the entity)`);
    if (isDerivedEntity(entityId))
      throw new InvalidArgumentError(argument, 'must not start with U+001F (reserved)');
    const rest = namespace.slice(this.entityParts);
    if (rest.some((part) => containsNul(part) || hasLoneSurrogate(part)))
      throw new InvalidArgumentError(argument, 'must hold well-formed Unicode without U+0000');
    if (exceedsUtf8Bytes(encodeParts(rest), MAX_LONGTERM_KEY_BYTES))
      throw new InvalidArgumentError(
        argument,
        `must be at most ${MAX_LONGTERM_KEY_BYTES} UTF-8 bytes, with the key and once encoded`,
      );
    return { entityId, rest };
  }
}

function encodeParts(parts: readonly string[]): string {
  return parts.map((part) => `${part.length}:${part}`).join('');
}
