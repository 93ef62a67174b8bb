import { applyDecorators, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiExtraModels, ApiResponse } from '@nestjs/swagger';
import { HttpErrorDto } from '../dto/responses.dto.js';
import { AgentMemoryExceptionFilter } from '../errors/agent-memory-exception.filter.js';
import { TenantScopeGuard } from '../tenancy/tenant-scope.guard.js';
import { BodyShapePipe } from '../validation/body-shape.pipe.js';
import { JsonBodyGuard } from '../validation/json-body.guard.js';
import { FastValidationPipe } from '../validation/fast-validation.pipe.js';

/**
 * What every controller of the module shares: strict DTO validation (bodies nested deeper than 100
 * levels or holding `__proto__`, `constructor` or `prototype` keys refused, unknown fields refused,
 * query strings converted, the verdict on a query string remembered), a body that must be JSON
 * (415 otherwise), the error mapping to `{ statusCode, error, message }`, the tenant of the
 * request (a guard, after the app's own), and the documented error responses.
 */
export function AgentMemoryRoutes(): ClassDecorator {
  return applyDecorators(
    UsePipes(
      new BodyShapePipe(),
      new FastValidationPipe({
        whitelist: true,
        forbidNonWhitelisted: true,
        transform: true,
        stopAtFirstError: true,
      }),
    ),
    UseFilters(AgentMemoryExceptionFilter),
    UseGuards(TenantScopeGuard, JsonBodyGuard),
    ApiExtraModels(HttpErrorDto),
    ApiResponse({ status: 400, description: 'Invalid input', type: HttpErrorDto }),
    ApiResponse({ status: 401, description: 'Unauthenticated (app guard)', type: HttpErrorDto }),
    ApiResponse({ status: 429, description: 'Rate limited (app throttler)', type: HttpErrorDto }),
    ApiResponse({
      status: 415,
      description: 'A body that is not JSON (routes that take one)',
      type: HttpErrorDto,
    }),
  );
}
