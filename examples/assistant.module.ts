// examples/assistant.module.ts
import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  Module,
} from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import {
  CHAT_MEMORY_STORE,
  type ChatMemoryStore,
  ChatMemoryModule,
  type KernelFilter,
  KernelModule,
  KernelTool,
  type ToolContext,
  getKernelChatRequest,
  getKernelToolRequest,
  memoryFilter,
} from 'nest-agent-memory';

/** A custom tool: any provider method marked @KernelTool() is discovered by every kernel. */
@Injectable()
export class WeatherTools {
  @KernelTool({
    name: 'weather',
    description: 'Current temperature of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  })
  async weather({ city }: { city: string }, context: ToolContext) {
    // Tools run at least once: dedupe outside side effects on context.idempotencyKey.
    return { city, celsius: 21, request: context.idempotencyKey };
  }
}

/** A custom filter: a Nest interceptor around every model call and every tool call. */
@Injectable()
export class TimingFilter implements KernelFilter {
  readonly timings: string[] = [];
  private readonly logger = new Logger(TimingFilter.name);

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const label =
      context.getType<string>() === 'kernel-chat'
        ? `model call ${getKernelChatRequest(context).round}`
        : `tool ${getKernelToolRequest(context).name}`;
    const started = performance.now();
    return next.handle().pipe(
      tap(() => {
        const line = `${label}: ${(performance.now() - started).toFixed(1)} ms`;
        this.timings.push(line);
        this.logger.debug(line);
      }),
    );
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: ':memory:' }),
    KernelModule.forRootAsync({
      inject: [CHAT_MEMORY_STORE],
      useFactory: (store: ChatMemoryStore) => ({
        // The offline model; toolCommands lets a '/tool name {json}' message call a tool (demos only).
        llm: { provider: 'echo', toolCommands: true }, // or { provider: 'openai', model: 'gpt-4o-mini' }
        filters: [memoryFilter(store), TimingFilter], // first = outermost
        maxToolIterations: 5,
      }),
    }),
  ],
  providers: [WeatherTools, TimingFilter],
})
export class AssistantModule {}
