import { OptionChecker } from '../../common/options/option-checker.js';
import { assertDataSourceOption } from '../connections/sql/data-source-option.js';
import { parseStoreUri } from '../connections/store-uri.js';
import type { LangGraphModuleOptions } from './langgraph.options.js';
import { STORE_OPTION_KEYS } from './store-option-keys.js';

const KEYS = ['uri', 'dataSource', 'migrationsRun', 'keyPrefix', 'serde', 'store'] as const;

/**
 * Checks `LangGraphModule` options at bootstrap (the URI is parsed without loading a driver) and
 * returns them typed, or throws `InvalidModuleOptionsError` naming the option at fault — a typo
 * (`stor`, `entityPart`) included.
 */
export function validateLangGraphOptions(value: unknown): LangGraphModuleOptions {
  const check = new OptionChecker('LangGraphModule');
  const options = check.object(value ?? {});
  check.keys(options, KEYS);
  if (options.dataSource !== undefined && options.uri !== undefined)
    check.fail('dataSource', 'give either uri or dataSource, not both');
  if (options.dataSource === undefined)
    parseStoreUri(options.uri, { moduleName: 'LangGraphModule', option: 'uri' });
  assertDataSourceOption(options.dataSource, 'LangGraphModule', 'dataSource');
  check.boolean('migrationsRun', options.migrationsRun);
  check.string('keyPrefix', options.keyPrefix);
  if (typeof options.keyPrefix === 'string' && /[{}]/.test(options.keyPrefix))
    check.fail('keyPrefix', 'must not hold "{" or "}" (they would break the cluster hash tag)');
  if (options.serde !== undefined) {
    const serde = check.object(options.serde, 'serde');
    if (typeof serde.dumpsTyped !== 'function' || typeof serde.loadsTyped !== 'function')
      check.fail('serde', 'must be a serializer (dumpsTyped and loadsTyped)');
  }
  if (options.store !== undefined && options.store !== false) {
    const store = check.object(options.store, 'store');
    const nested = check.nested('store');
    nested.keys(store, STORE_OPTION_KEYS);
    nested.integer('entityParts', store.entityParts, 0);
    nested.string('entityId', store.entityId);
  }
  return options as LangGraphModuleOptions;
}
