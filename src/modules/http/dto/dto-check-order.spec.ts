import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { getMetadataStorage } from 'class-validator';

/**
 * The routes validate with `stopAtFirstError`, so a field's first check is the one whose message a
 * client reads: a check of the type comes before any of the size, or `{ text: 5 }` would be told
 * its text is too long.
 */
const TYPE_CHECKS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);
const SIZE_CHECKS = new Set([
  'maxLength',
  'minLength',
  'min',
  'max',
  'arrayMaxSize',
  'arrayMinSize',
]);

/** Each DTO field's checks, in the order class-validator runs them. */
async function checksOfEveryField(): Promise<Array<[string, string[]]>> {
  const folder = new URL('./', import.meta.url);
  const fields: Array<[string, string[]]> = [];
  for (const file of readdirSync(folder).filter((name) => /(?<!\.spec)\.ts$/.test(name))) {
    const exported = (await import(new URL(file, folder).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value !== 'function') continue;
      const checks = new Map<string, string[]>();
      for (const check of getMetadataStorage().getTargetValidationMetadatas(
        value as new () => object,
        '',
        true,
        false,
      )) {
        const list = checks.get(check.propertyName) ?? [];
        list.push(check.name ?? check.type);
        checks.set(check.propertyName, list);
      }
      for (const [property, list] of checks) fields.push([`${name}.${property}`, list]);
    }
  }
  return fields;
}

describe('the DTOs of the HTTP routes', () => {
  it('check a field’s type before its size', async () => {
    const fields = await checksOfEveryField();
    expect(fields.length).toBeGreaterThan(30);
    const sized = fields.filter(([, checks]) => checks.some((check) => SIZE_CHECKS.has(check)));
    expect(sized.length).toBeGreaterThan(10);
    const typeLater = sized.filter(([, checks]) => {
      const firstSize = checks.findIndex((check) => SIZE_CHECKS.has(check));
      const type = checks.findIndex((check) => TYPE_CHECKS.has(check));
      return type === -1 || type > firstSize;
    });
    expect(typeLater).toEqual([]);
  });
});
