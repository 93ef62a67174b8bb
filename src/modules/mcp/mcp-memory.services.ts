import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AgentService } from '../agent/agent.service.js';
import { findProvider, requiredModule } from '../http/optional-modules.js';
import { LongtermMemoryDisabledError } from '../longterm/errors/longterm.errors.js';
import { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { WorkingMemoryService } from '../working-memory/working-memory.service.js';

/**
 * The memory services the MCP tools run on, found in whatever modules the app configured
 * (`LongtermMemoryModule`, `WorkingMemoryModule`), wherever they were imported. A tool whose module
 * the app left out answers a tool error naming it; the others keep working.
 */
@Injectable()
export class McpMemoryServices implements OnModuleInit {
  private longtermService?: LongtermMemoryService;
  private workingMemoryService?: WorkingMemoryService;
  private agentService?: AgentService;

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    this.longtermService = findProvider(this.moduleRef, LongtermMemoryService);
    this.workingMemoryService = findProvider(this.moduleRef, WorkingMemoryService);
    this.agentService = findProvider(this.moduleRef, AgentService);
  }

  /** The agent, when the app has one (its profiles: `formation.profile`). */
  get agent(): AgentService | undefined {
    return this.agentService;
  }

  /** The long-term tier; off (no URI) → `LongtermMemoryDisabledError`. */
  get longterm(): LongtermMemoryService {
    const service = requiredModule(this.longtermService, 'LongtermMemoryModule', 'tool');
    if (!service.enabled) throw new LongtermMemoryDisabledError();
    return service;
  }

  /** Working memory. */
  get workingMemory(): WorkingMemoryService {
    return requiredModule(this.workingMemoryService, 'WorkingMemoryModule', 'tool');
  }
}
