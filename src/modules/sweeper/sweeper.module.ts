import { Module } from '@nestjs/common';
import { ConfigurableSweeperModule } from './sweeper.module-definition.js';

/**
 * Where the package's sweeps run: `SweeperModule.forRoot({ driver: 'bull',
 * redisUrl })` makes long-term expiry, idle working memory and run retention Bull repeatable jobs,
 * one pass per tick across all instances; `{ driver: 'interval' }` (the same as no module) keeps
 * in-process timers. Global by default.
 *
 * @property forRoot Provides `SWEEP_SCHEDULER` for these options; the extra `isGlobal` (default
 *   `true`) goes beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createSweeperOptions()`).
 */
@Module({})
export class SweeperModule extends ConfigurableSweeperModule {}
