// examples/mcp-server.module.ts
import { BadRequestException, Injectable, Module } from '@nestjs/common';
import { LongtermMemoryModule, TENANT_ID_PATTERN, WorkingMemoryModule } from 'nest-agent-memory';
import type { TenantRequest, TenantResolver } from 'nest-agent-memory/http';
import { AgentMemoryMcpModule } from 'nest-agent-memory/mcp';

/** The tenant is the `x-tenant` header: trust it only behind your own auth guard. */
@Injectable()
export class HeaderTenantResolver implements TenantResolver {
  resolve(request: TenantRequest): string | undefined {
    const tenant = request.headers['x-tenant'];
    if (tenant === undefined) return undefined;
    // A header that is no tenant id is the client's mistake (400), not the app's (500).
    if (typeof tenant !== 'string' || !TENANT_ID_PATTERN.test(tenant))
      throw new BadRequestException(
        'x-tenant must be 1–50 characters of letters, digits and _ - . : @',
      );
    return tenant;
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
