import { Global, Module } from '@nestjs/common';
import { ConnectionRegistry } from './connection-registry.js';

/**
 * Global core module holding the application's one {@link ConnectionRegistry}. Every memory module
 * imports it, and Nest instantiates it once per application.
 */
@Global()
@Module({
  providers: [ConnectionRegistry],
  exports: [ConnectionRegistry],
})
export class ConnectionsModule {}
