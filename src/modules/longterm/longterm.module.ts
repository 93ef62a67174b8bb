import { Module } from '@nestjs/common';
import { ConfigurableLongtermModule } from './longterm.module-definition.js';

/**
 * The long-term tier. `LongtermMemoryModule.forRoot({ uri })` (or `forRootAsync`)
 * provides `LONGTERM_MEMORY_STORE` (`@InjectLongtermMemoryStore()`) and `LongtermMemoryService`.
 * Without a URI the tier is off: nothing is opened, and every use throws
 * `LongtermMemoryDisabledError`.
 *
 * @property forRoot Provides the tier for these options; the extra `isGlobal` (default `true`) goes
 *   beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createLongtermMemoryOptions()`).
 */
@Module({})
export class LongtermMemoryModule extends ConfigurableLongtermModule {}
