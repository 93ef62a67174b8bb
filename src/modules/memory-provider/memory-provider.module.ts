import { Module } from '@nestjs/common';
import { ConfigurableMemoryProviderModule } from './memory-provider.module-definition.js';

/**
 * The policy layer of conversation memory. `MemoryProviderModule.forRoot({ policy,
 * … })` provides a `MemoryProvider` under `MEMORY_PROVIDER` (`@InjectMemoryProvider()`), on a
 * `ChatMemoryModule` store of the app: `window` (the safe window; default), `token-budget`,
 * `summarizing`, or `custom`.
 *
 * @property forRoot Provides the `MemoryProvider` for these options; the extras `name` and
 *   `isGlobal` (default `true`) go beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createMemoryProviderOptions()`).
 */
@Module({})
export class MemoryProviderModule extends ConfigurableMemoryProviderModule {}
