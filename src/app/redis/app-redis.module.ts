import { Global, Module } from '@nestjs/common';
import { AppRedis } from './app-redis.provider.js';

/** Provides the app's own Redis client (`AppRedis`) everywhere. */
@Global()
@Module({ providers: [AppRedis], exports: [AppRedis] })
export class AppRedisModule {}
