import type { DynamicModule, Provider } from '@nestjs/common';
import { ConnectionsModule } from './connections.module.js';

/**
 * Completes the dynamic module a `ConfigurableModuleBuilder` made for a feature that holds
 * connections: global as its `isGlobal` extra says, with the connection layer imported, and the
 * feature's own providers and exports added.
 */
export function withFeatureProviders(
  definition: DynamicModule,
  isGlobal: boolean | undefined,
  feature: { providers: Provider[]; exports: NonNullable<DynamicModule['exports']> },
): DynamicModule {
  return {
    ...definition,
    global: isGlobal,
    imports: [...(definition.imports ?? []), ConnectionsModule],
    providers: [...(definition.providers ?? []), ...feature.providers],
    exports: feature.exports,
  };
}
