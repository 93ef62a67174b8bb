import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { ChatMessage } from '../chat-memory/interfaces/chat-message.interface.js';
import type { KernelFilter } from './interfaces/kernel-filter.interface.js';
import type {
  InvokeOptions,
  InvokeResult,
  KernelStreamEvent,
} from './interfaces/kernel-invoke.interface.js';
import type { LlmAdapter } from './interfaces/llm.interface.js';
import { KernelEngine } from './kernel-engine.js';
import { KERNEL_MODULE_OPTIONS } from './kernel.module-definition.js';
import type { KernelModuleOptions } from './kernel.options.js';
import { createLlmAdapter, isLlmAdapter } from './llm/create-llm-adapter.js';
import type { LlmOptions } from './llm/llm-options.js';
import { discoverKernelTools } from './tools/tool-discovery.js';
import { createSchemaCompiler } from './tools/tool-factory.js';
import { ToolRegistry } from './tools/tool-registry.js';

/**
 * The kernel (DESIGN §6): stateless chat and tool invocation through an onion of filters. Built
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

  async onModuleInit(): Promise<void> {
    const { options } = this;
    if (
      options.maxToolIterations !== undefined &&
      !(Number.isInteger(options.maxToolIterations) && options.maxToolIterations >= 0)
    ) {
      throw new InvalidModuleOptionsError(
        'KernelModule',
        'maxToolIterations',
        'must be an integer ≥ 0',
      );
    }
    const ajv = createSchemaCompiler();
    const discovered = discoverKernelTools(
      { discovery: this.discovery, scanner: this.scanner, reflector: this.reflector },
      ajv,
    );
    this.built = new KernelEngine({
      llm: await this.resolveLlm(options.llm),
      filters: await Promise.all(
        (options.filters ?? []).map((filter) => this.resolveFilter(filter)),
      ),
      tools: ToolRegistry.build(discovered, options.tools, ajv),
      maxToolIterations: options.maxToolIterations,
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

  private async resolveLlm(llm: KernelModuleOptions['llm']): Promise<LlmAdapter> {
    if (typeof llm === 'function') return this.resolveClass(llm);
    if (isLlmAdapter(llm)) return llm;
    return createLlmAdapter(llm as LlmOptions);
  }

  private async resolveFilter(filter: KernelFilter | Type<KernelFilter>): Promise<KernelFilter> {
    const instance = typeof filter === 'function' ? await this.resolveClass(filter) : filter;
    if (typeof instance?.intercept !== 'function') {
      throw new InvalidModuleOptionsError(
        'KernelModule',
        'filters',
        `${describe(filter)} has no intercept(context, next) method`,
      );
    }
    return instance;
  }

  /** A provider from the container if registered anywhere, else a new instance made with DI. */
  private async resolveClass<T>(type: Type<T>): Promise<T> {
    try {
      return this.moduleRef.get(type, { strict: false });
    } catch {
      return this.moduleRef.create(type);
    }
  }
}

function describe(value: unknown): string {
  return typeof value === 'function'
    ? value.name
    : ((value as object)?.constructor?.name ?? String(value));
}
