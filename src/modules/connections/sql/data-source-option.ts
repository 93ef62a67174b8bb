import type { DynamicModule, InjectionToken, Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';

/**
 * The injection token of a DataSource in the app's container: what `getDataSourceToken(name)` of
 * `@nestjs/typeorm` returns (the `DataSource` class for the default connection, `'<name>DataSource'`
 * for a named one), or your own provider's token.
 */
export type DataSourceToken = InjectionToken;

/**
 * A SQL connection option: an initialized DataSource you own, or, in a module's `forRoot`, the
 * token of one in the container — the app's `TypeOrmModule` connection, shared and never closed by
 * the package.
 */
export type DataSourceOption = DataSource | DataSourceToken;

/** Whether a `dataSource` option is a token rather than a DataSource. */
export function isDataSourceToken(value: unknown): value is DataSourceToken {
  return typeof value === 'string' || typeof value === 'symbol' || typeof value === 'function';
}

/** Whether a value looks like a TypeORM DataSource (duck-typed: the app may load its own copy). */
export function isDataSource(value: unknown): value is DataSource {
  return typeof value === 'object' && value !== null && 'options' in value && 'query' in value;
}

/**
 * Checks a `dataSource` option at bootstrap, when tokens have been resolved: a token still there
 * came through `forRootAsync`, whose options Nest builds too late to inject it.
 */
export function assertDataSourceOption(value: unknown, moduleName: string, option: string): void {
  if (value === undefined || isDataSource(value)) return;
  throw new InvalidModuleOptionsError(
    moduleName,
    option,
    isDataSourceToken(value)
      ? 'is an injection token, which only forRoot resolves; in forRootAsync, inject it (inject: [getDataSourceToken(name)]) and return the DataSource itself'
      : 'must be a TypeORM DataSource, or in forRoot the injection token of one (getDataSourceToken(name))',
  );
}

/**
 * For a sync `forRoot` whose options name a DataSource by token (`locate` finds it): the module's
 * options provider becomes a factory that injects the token, so Nest resolves the app's connection
 * first (`TypeOrmModule` initializes it) and the module sees the DataSource itself. Any other
 * definition is returned unchanged.
 */
export function injectDataSourceToken(
  definition: DynamicModule,
  optionsToken: InjectionToken,
  locate: {
    get(options: Record<string, unknown>): unknown;
    set(options: Record<string, unknown>, dataSource: DataSource): object;
  },
): DynamicModule {
  const providers = definition.providers ?? [];
  const index = providers.findIndex(
    (provider) =>
      typeof provider === 'object' && 'provide' in provider && provider.provide === optionsToken,
  );
  const current = providers[index] as { useValue?: unknown } | undefined;
  const options = current?.useValue;
  if (typeof options !== 'object' || options === null) return definition;
  const token = locate.get(options as Record<string, unknown>);
  if (!isDataSourceToken(token)) return definition;
  const resolved: Provider = {
    provide: optionsToken,
    useFactory: (dataSource: DataSource) =>
      locate.set(options as Record<string, unknown>, dataSource),
    inject: [token],
  };
  return {
    ...definition,
    providers: providers.map((provider, i) => (i === index ? resolved : provider)),
  };
}
