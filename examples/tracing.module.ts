// examples/tracing.module.ts
import { Module } from '@nestjs/common';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { AgentModule, ChatMemoryModule, OpenTelemetryFilter } from 'nest-agent-memory';

/** Your app's tracing, registered before Nest starts; spans go to OTEL_EXPORTER_OTLP_ENDPOINT. */
export function startTracing(): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return provider;
}

/** A span per turn, per model call and per tool call, and one per store operation. */
@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'memory' }),
    AgentModule.forRoot({ llm: { provider: 'echo' }, filters: [new OpenTelemetryFilter()] }),
  ],
})
export class TracedAgentModule {}
