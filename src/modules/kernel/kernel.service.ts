import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type {
  InvokeOptions,
  InvokeResult,
  KernelStreamEvent,
} from './interfaces/kernel-invoke.interface.js';
import type { KernelEngine } from './kernel-engine.js';
import { createKernelEngine } from './kernel-engine.factory.js';
import { KERNEL_MODULE_OPTIONS } from './kernel.module-definition.js';
import type { KernelModuleOptions } from './kernel.options.js';
import { validateKernelOptions } from './kernel-options.validation.js';

/**
 * The kernel: stateless chat and tool invocation through an onion of filters. Built
 * once when its module initializes — adapter, filters, discovered tools, chains — so a bad option,
 * a duplicate tool name or an invalid tool schema stops the application at bootstrap.
 */
@Injectable()
export class KernelService implements OnModuleInit {
  private built?: KernelEngine;

  constructor(
    @Inject(KERNEL_MODULE_OPTIONS) private readonly options: KernelModuleOptions,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  /**
   * Validates the module options and builds the engine: resolves the adapter (awaiting its
   * `ready()`) and the filters, and collects the app's `@KernelTool()` methods. A bad option, a
   * missing provider package or a duplicate tool name fails bootstrap here.
   */
  async onModuleInit(): Promise<void> {
    this.built = await createKernelEngine(validateKernelOptions(this.options), {
      moduleRef: this.moduleRef,
      discovery: this.discovery,
      scanner: this.scanner,
      reflector: this.reflector,
      moduleName: 'KernelModule',
    });
  }

  /** The engine this service runs (the agent drives its loop directly). */
  get engine(): KernelEngine {
    if (!this.built) throw new Error('KernelService is used before its module initialized');
    return this.built;
  }

  /** Runs the messages to a final answer, through the filters and the tool loop. */
  invoke(messages: ChatMessage[], options?: InvokeOptions): Promise<InvokeResult> {
    return this.engine.invoke(messages, options);
  }

  /** Like `invoke`, yielding tokens and tool events as they happen, then `{ type: 'result' }`. */
  invokeStream(messages: ChatMessage[], options?: InvokeOptions): AsyncIterable<KernelStreamEvent> {
    return this.engine.invokeStream(messages, options);
  }
}
