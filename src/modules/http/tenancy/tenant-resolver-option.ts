import type { Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import type { OptionChecker } from '../../../common/options/option-checker.js';
import { SingleTenantResolver, type TenantResolver } from './tenant-resolver.js';

/** A module's `tenantResolver` option: an instance, or a class the module instantiates. */
export type TenantResolverOption = TenantResolver | Type<TenantResolver>;

/** Checks a `tenantResolver` option at bootstrap (an object with `resolve`, or a class). */
export function checkTenantResolverOption(check: OptionChecker, resolver: unknown): void {
  if (
    resolver !== undefined &&
    typeof resolver !== 'function' &&
    typeof (resolver as { resolve?: unknown })?.resolve !== 'function'
  )
    check.fail('tenantResolver', 'must be a TenantResolver (an object with resolve) or its class');
}

/**
 * The resolver a `tenantResolver` option names: one tenant when absent, a class made with the
 * module's injector (so it gets its dependencies), an instance as given.
 */
export async function resolveTenantResolver(
  resolver: TenantResolverOption | undefined,
  moduleRef: ModuleRef,
): Promise<TenantResolver> {
  if (resolver === undefined) return new SingleTenantResolver();
  if (typeof resolver === 'function') return moduleRef.create(resolver);
  return resolver;
}
