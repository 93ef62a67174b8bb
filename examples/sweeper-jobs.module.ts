// examples/sweeper-jobs.module.ts
import { Module } from '@nestjs/common';
import { SweeperModule } from 'nest-agent-memory';

/** The sweeps (expired records, idle working memory) as Bull jobs: each tick on one instance only. */
@Module({
  imports: [
    SweeperModule.forRoot({ driver: 'bull', redisUrl: 'redis://127.0.0.1:6379', prefix: 'bull' }),
  ],
})
export class SweeperJobsModule {}
