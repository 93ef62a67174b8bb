import { Module } from '@nestjs/common';
import { ConfigurableLongtermModule } from './longterm.module-definition.js';

/**
 * The long-term tier. `LongtermMemoryModule.forRoot({ uri })` (or `forRootAsync`)
 * provides `LONGTERM_MEMORY_STORE` (`@InjectLongtermMemoryStore()`) and `LongtermMemoryService`.
 * Without a URI the tier is off: nothing is opened, and every use throws
 * `LongtermMemoryDisabledError`.
 */
@Module({})
export class LongtermMemoryModule extends ConfigurableLongtermModule {}
