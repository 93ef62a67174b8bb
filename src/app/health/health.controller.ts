import { Controller, Get, HttpStatus, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import type { Queue } from 'bull';
import { AgentMemoryHealthService, AgentService } from 'nest-agent-memory';
import { Public } from '../auth/public.decorator.js';
import { SkipThrottle } from '@nestjs/throttler';

/**
 * `GET /health` (no auth): one indicator per backend the app connected to, named by kind only
 * (`sqlite`, `postgres`, `mysql`, `redis`, and `queue`: the Bull queue's own connection, when runs
 * are queued on Redis) — no host,
 * path or credential, since anyone may call it. 200 when all are up, 503 otherwise.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly connections: AgentMemoryHealthService,
    private readonly agent: AgentService,
  ) {}

  @Get()
  @Public()
  // Probes poll it: never rate limited, and never eating a client's budget.
  @SkipThrottle()
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness and readiness of every configured backend' })
  async check(
    @Res({ passthrough: true }) response: { status(code: number): unknown },
  ): Promise<HealthCheckResult> {
    try {
      return await this.runChecks();
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // Terminus reports a failed check as a 503 whose body is the full report: keep it.
      response.status(HttpStatus.SERVICE_UNAVAILABLE);
      return error.getResponse() as HealthCheckResult;
    }
  }

  private async runChecks(): Promise<HealthCheckResult> {
    const checks = await this.connections.check();
    return this.health.check([
      ...checks.map((check) => async () => {
        const indicator = this.indicators.check(check.name);
        return check.healthy
          ? indicator.up({ latencyMs: check.latencyMs })
          : indicator.down({ latencyMs: check.latencyMs });
      }),
      ...(this.agent.bullQueue ? [() => this.queue(this.agent.bullQueue!)] : []),
    ]);
  }

  private async queue(queue: Queue): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('queue');
    const started = performance.now();
    try {
      await queue.client.ping();
      return indicator.up({ latencyMs: Math.round(performance.now() - started) });
    } catch {
      return indicator.down();
    }
  }
}
