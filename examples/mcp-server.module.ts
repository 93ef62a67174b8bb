// examples/mcp-server.module.ts
import { Injectable, Module } from '@nestjs/common';
import { LongtermMemoryModule, WorkingMemoryModule } from 'nest-agent-memory';
import type { TenantRequest, TenantResolver } from 'nest-agent-memory/http';
import { AgentMemoryMcpModule } from 'nest-agent-memory/mcp';

/** The tenant is the `x-tenant` header: trust it only behind your own auth guard. */
@Injectable()
export class HeaderTenantResolver implements TenantResolver {
  resolve(request: TenantRequest): string | undefined {
    const tenant = request.headers['x-tenant'];
    return typeof tenant === 'string' ? tenant : undefined;
  }
}

/** Memory as MCP tools at `POST /mcp`, on in-process backends (pick yours as in the guides). */
@Module({
  imports: [
    LongtermMemoryModule.forRoot({ uri: 'memory://' }),
    WorkingMemoryModule.forRoot({ backend: 'memory' }),
    AgentMemoryMcpModule.forRoot({
      path: 'mcp', // the default
      tenantResolver: HeaderTenantResolver, // default: one tenant, ids stored as given
    }),
  ],
})
export class McpServerModule {}
