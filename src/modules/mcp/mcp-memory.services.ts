import {
  Injectable,
  type OnModuleInit,
  ServiceUnavailableException,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
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

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    this.longtermService = this.find(LongtermMemoryService);
    this.workingMemoryService = this.find(WorkingMemoryService);
  }

  /** The long-term tier; off (no URI) → `LongtermMemoryDisabledError`. */
  get longterm(): LongtermMemoryService {
    const service = required(this.longtermService, 'LongtermMemoryModule');
    if (!service.enabled) throw new LongtermMemoryDisabledError();
    return service;
  }

  /** Working memory. */
  get workingMemory(): WorkingMemoryService {
    return required(this.workingMemoryService, 'WorkingMemoryModule');
  }

  private find<T>(token: Type<T>): T | undefined {
    try {
      return this.moduleRef.get<T>(token, { strict: false });
    } catch {
      return undefined;
    }
  }
}

function required<T>(value: T | undefined, module: string): T {
  if (value === undefined)
    throw new ServiceUnavailableException(
      `This tool needs ${module}, which the application does not import`,
    );
  return value;
}
