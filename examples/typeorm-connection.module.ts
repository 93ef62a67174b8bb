// examples/typeorm-connection.module.ts
import { Module } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { EntitySchema } from 'typeorm';
import {
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
  agentMemoryEntitySchemas,
  agentMemoryMigrations,
} from 'nest-agent-memory';

/** An app whose own TypeORM connection, schema and migrations serve the memory modules too. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        type: 'postgres',
        url: process.env.DATABASE_URL,
        // The package's tables as entities, and its migrations in the app's own migration set.
        entities: agentMemoryEntitySchemas('postgres').map((options) => new EntitySchema(options)),
        migrations: agentMemoryMigrations('postgres'),
        migrationsRun: true,
      }),
    }),
    // The app's connection by token (`getDataSourceToken('name')` for a named one). TypeORM ran
    // the migrations, so the modules only check that they are there.
    ChatMemoryModule.forRoot({
      backend: 'postgres',
      dataSource: getDataSourceToken(),
      migrationsRun: false,
    }),
    LongtermMemoryModule.forRoot({ dataSource: getDataSourceToken(), migrationsRun: false }),
    // The agent's runs follow its chat store onto the same connection.
    AgentModule.forRoot({ llm: { provider: 'echo' } }),
  ],
  // Imported as a feature module, it hands its services to the modules that import it.
  exports: [AgentModule, ChatMemoryModule, LongtermMemoryModule],
})
export class TypeOrmConnectionModule {}
