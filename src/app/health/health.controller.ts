import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AgentMemoryHealthService, type ConnectionHealth } from 'nest-agent-memory';

/** `GET /health` body. */
export interface HealthReport {
  status: 'ok' | 'error';
  checks: ConnectionHealth[];
}

/** Liveness and readiness of every backend the app has connected to (no auth). */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(AgentMemoryHealthService) private readonly health: AgentMemoryHealthService,
  ) {}

  /** 200 when every connection answers, 503 otherwise. */
  @Get()
  async check(@Res({ passthrough: true }) response: Response): Promise<HealthReport> {
    const checks = await this.health.check();
    const healthy = checks.every((check) => check.healthy);
    response.status(healthy ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return { status: healthy ? 'ok' : 'error', checks };
  }
}
