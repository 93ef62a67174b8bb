import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { findProvider, requiredModule } from './optional-modules.js';
import { AgentService } from '../agent/agent.service.js';
import { CHAT_MEMORY_STORE } from '../chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { LongtermMemoryDisabledError } from '../longterm/errors/longterm.errors.js';
import { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';
import { AGENT_MEMORY_HTTP_OPTIONS } from './http.constants.js';

/** Default byte budget of one page of a list: 1 MiB of JSON. */
export const DEFAULT_PAGE_BYTES = 1024 * 1024;

/**
 * The services the routes use, found in whatever modules the app configured (`AgentModule`,
 * `ChatMemoryModule`, `LongtermMemoryModule`, `WorkingMemoryModule`), wherever they were imported.
 * A route whose module the app left out answers 503 naming it.
 */
@Injectable()
export class AgentMemoryHttpServices implements OnModuleInit {
  private agentService?: AgentService;
  private chatStore?: ChatMemoryStore;
  private longtermService?: LongtermMemoryService;
  private workingMemoryService?: WorkingMemoryService;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(AGENT_MEMORY_HTTP_OPTIONS) private readonly options: AgentMemoryHttpModuleOptions,
  ) {}

  /** Most bytes of JSON one page of a list may hold. */
  get pageBytes(): number {
    return this.options.pageBytes ?? DEFAULT_PAGE_BYTES;
  }

  onModuleInit(): void {
    this.agentService = findProvider(this.moduleRef, AgentService);
    this.chatStore = findProvider<ChatMemoryStore>(this.moduleRef, CHAT_MEMORY_STORE);
    this.longtermService = findProvider(this.moduleRef, LongtermMemoryService);
    this.workingMemoryService = findProvider(this.moduleRef, WorkingMemoryService);
  }

  get agent(): AgentService {
    return requiredModule(this.agentService, 'AgentModule', 'route');
  }

  /** The app's default chat store: the history turns are committed to and read from. */
  get chat(): ChatMemoryStore {
    return requiredModule(this.chatStore, 'ChatMemoryModule', 'route');
  }

  /** The long-term tier; off (no URI) → `LongtermMemoryDisabledError` (503 with the app's hint). */
  get longterm(): LongtermMemoryService {
    const service = requiredModule(this.longtermService, 'LongtermMemoryModule', 'route');
    if (!service.enabled) throw new LongtermMemoryDisabledError();
    return service;
  }

  /** Removes a conversation's working memory, if the app has the module. */
  async clearWorkingMemory(conversationId: string): Promise<void> {
    await this.workingMemoryService?.clear(conversationId);
  }

  get workingMemory(): WorkingMemoryService {
    return requiredModule(this.workingMemoryService, 'WorkingMemoryModule', 'route');
  }

  /** Whether the app has an agent (the conversation delete also forgets its runs then). */
  get hasAgent(): boolean {
    return this.agentService !== undefined;
  }
}
