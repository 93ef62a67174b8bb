import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';

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
    return { entityId, key: `${encodeParts(rest)}|${key}` };
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
    return { entityId, rest: namespace.slice(this.entityParts) };
  }
}

function encodeParts(parts: readonly string[]): string {
  return parts.map((part) => `${part.length}:${part}`).join('');
}
