import { describe, expect, it } from '@jest/globals';
import { variableAtFault } from './config-error.testing.js';
import { loadTelemetryConfig } from './telemetry.config.js';

describe('telemetry configuration', () => {
  it('exports nothing and captures no content by default', () => {
    expect(loadTelemetryConfig({})).toEqual({ captureContent: false });
  });

  it('reads the OTLP endpoint and content capture', () => {
    expect(
      loadTelemetryConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_CAPTURE_CONTENT: 'true',
      }),
    ).toEqual({ otlpEndpoint: 'http://127.0.0.1:4318', captureContent: true });
  });

  it('names the variable at fault', () => {
    expect(
      variableAtFault(() => loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' })),
    ).toBe('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(variableAtFault(() => loadTelemetryConfig({ OTEL_CAPTURE_CONTENT: 'yes' }))).toBe(
      'OTEL_CAPTURE_CONTENT',
    );
  });
});
