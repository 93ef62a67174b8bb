import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { AppMetrics } from './app-metrics.js';

/** Feeds every ended span to the app's metrics. */
class SpanMetricsProcessor implements SpanProcessor {
  constructor(private readonly metrics: AppMetrics) {}
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.metrics.record(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/**
 * Starts the OpenTelemetry SDK for the example app: a tracer provider whose spans feed `metrics`
 * and, when `otlpEndpoint` is set (`OTEL_EXPORTER_OTLP_ENDPOINT`), are exported over OTLP/HTTP in
 * batches (the exporter reads the standard `OTEL_EXPORTER_OTLP_*` variables). Returns the provider,
 * to flush and shut down at exit.
 */
export function startTracing(
  metrics: AppMetrics,
  otlpEndpoint: string | undefined,
): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    // Every span is recorded, whatever OTEL_TRACES_SAMPLER says: the metrics count them all.
    // Sample what you keep at the collector (tail sampling), not here.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [
      new SpanMetricsProcessor(metrics),
      // A short export timeout, so a collector that is down cannot hold up the shutdown.
      ...(otlpEndpoint
        ? [new BatchSpanProcessor(new OTLPTraceExporter({ timeoutMillis: 3_000 }))]
        : []),
    ],
  });
  provider.register();
  return provider;
}
