import { Module } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { ConversationsController } from './app/conversations/conversations.controller.js';
import { HealthController } from './app/health/health.controller.js';
import { HttpErrorFilter } from './app/http/http-error.filter.js';
import { appConfig } from './config/app.config.js';
import { chatMemoryConfig } from './config/chat-memory.config.js';
import { loggingConfig } from './config/logging.config.js';
import { ChatMemoryModule } from 'nest-agent-memory';

/**
 * The example application: the library's modules wired from `src/config` (environment variables,
 * validated at startup), behind the HTTP API.
 */
@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      load: [appConfig, loggingConfig, chatMemoryConfig],
    }),
    LoggerModule.forRootAsync({
      inject: [loggingConfig.KEY],
      useFactory: (params: ConfigType<typeof loggingConfig>) => params,
    }),
    ChatMemoryModule.forRootAsync({
      inject: [chatMemoryConfig.KEY],
      useFactory: (options: ConfigType<typeof chatMemoryConfig>) => options,
    }),
  ],
  controllers: [HealthController, ConversationsController],
  providers: [{ provide: APP_FILTER, useClass: HttpErrorFilter }],
})
export class AppModule {}
