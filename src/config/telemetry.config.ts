import { registerAs } from '@nestjs/config';
import { type Env, readBoolean, readUrl } from './env.js';

/** Traces and metrics of the example app. */
export interface TelemetryConfig {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: when set, spans are exported there over OTLP/HTTP. */
  otlpEndpoint?: string;
  /** `OTEL_CAPTURE_CONTENT` (`false`): message contents, tool arguments and results on spans. */
  captureContent: boolean;
}

/** Reads `OTEL_EXPORTER_OTLP_ENDPOINT` (none) and `OTEL_CAPTURE_CONTENT` (`false`). */
export function loadTelemetryConfig(env: Env = process.env): TelemetryConfig {
  const otlpEndpoint = readUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  return {
    ...(otlpEndpoint === undefined ? {} : { otlpEndpoint }),
    captureContent: readBoolean(env, 'OTEL_CAPTURE_CONTENT', false),
  };
}

/** The `telemetry` config namespace. */
export const telemetryConfig = registerAs('telemetry', () => loadTelemetryConfig());
