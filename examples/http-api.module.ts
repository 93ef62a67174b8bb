// examples/http-api.module.ts
import { BadRequestException, Injectable, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
  TENANT_ID_PATTERN,
  WorkingMemoryModule,
} from 'nest-agent-memory';
import {
  AgentMemoryHttpModule,
  type TenantRequest,
  type TenantResolver,
} from 'nest-agent-memory/http';

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

/** The HTTP API under `/api`, on in-process backends (pick yours as in the sections above). */
@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'memory' }),
    LongtermMemoryModule.forRoot({ uri: 'memory://' }),
    WorkingMemoryModule.forRoot({ backend: 'memory' }),
    AgentModule.forRoot({ llm: { provider: 'echo' } }),
    AgentMemoryHttpModule.forRoot({
      path: 'api', // optional prefix (RouterModule works too)
      tenantResolver: HeaderTenantResolver, // default: one tenant, ids stored as given
      // tools: false, // leave out the built-in memory_* / scratchpad_* tools
    }), // AgentMemoryHttpModule.forRoot() takes the defaults
  ],
  // Maps errors raised before routing (malformed or oversized JSON) the same way.
  providers: [{ provide: APP_FILTER, useClass: AgentMemoryExceptionFilter }],
})
export class HttpApiModule {}
