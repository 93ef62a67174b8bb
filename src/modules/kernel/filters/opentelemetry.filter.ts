import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Observable, tap } from 'rxjs';
import type {
  KernelChatRequest,
  KernelFilter,
  KernelToolRequest,
  KernelToolResult,
} from '../interfaces/kernel-filter.interface.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';
import { ATTR } from '../../../common/telemetry/attributes.js';
import { markFailed, tracer, withSpan } from '../../../common/telemetry/spans.js';

/** Options of {@link OpenTelemetryFilter}. */
export interface OpenTelemetryFilterOptions {
  /**
   * Record message contents, tool arguments and tool results on the spans
   * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`). Off by default: traces then carry ids, names and counts only.
   */
  captureContent?: boolean;
}

/**
 * A kernel filter that traces every model call (`chat <model>`, a client span) and every tool call
 * (`execute_tool <name>`) with the OpenTelemetry GenAI semantic conventions: operation, provider,
 * model, token usage and finish reason; tool name, call id and type; the conversation and run ids.
 * Uses `@opentelemetry/api` only, so it costs next to nothing until the app registers an SDK. Put
 * it first in `filters` to time everything the other filters do too.
 */
export class OpenTelemetryFilter implements KernelFilter {
  private readonly captureContent: boolean;

  constructor(options: OpenTelemetryFilterOptions = {}) {
    this.captureContent = options.captureContent ?? false;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const type = context.getType<string>();
    if (type === 'kernel-chat')
      return this.modelCall(context.getArgs()[0] as KernelChatRequest, next);
    if (type === 'kernel-tool')
      return this.toolCall(context.getArgs()[0] as KernelToolRequest, next);
    return next.handle();
  }

  private modelCall(request: KernelChatRequest, next: CallHandler): Observable<unknown> {
    const model = request.model?.model;
    const span = tracer.startSpan(model ? `chat ${model}` : 'chat', { kind: SpanKind.CLIENT });
    // Nothing records it (no SDK, or sampled out): no attributes, no wrapping.
    if (!span.isRecording()) return next.handle();
    span.setAttributes({
      [ATTR.operation]: 'chat',
      [ATTR.round]: request.round,
      [ATTR.runId]: request.invokeId,
      ...(request.model ? { [ATTR.provider]: request.model.provider } : {}),
      ...(model ? { [ATTR.requestModel]: model } : {}),
      ...(request.context.conversationId
        ? { [ATTR.conversationId]: request.context.conversationId }
        : {}),
      ...(this.captureContent ? { [ATTR.inputMessages]: JSON.stringify(request.messages) } : {}),
    });
    return traced(span, this.captureContent, next, (value) => {
      const response = value as LlmResponse;
      span.setAttributes({
        [ATTR.inputTokens]: response.usage.promptTokens,
        [ATTR.outputTokens]: response.usage.completionTokens,
        ...(response.finishReason ? { [ATTR.finishReasons]: [response.finishReason] } : {}),
        ...(this.captureContent
          ? { [ATTR.outputMessages]: JSON.stringify([response.message]) }
          : {}),
      });
    });
  }

  private toolCall(request: KernelToolRequest, next: CallHandler): Observable<unknown> {
    const { context } = request;
    // The model may call any name: the span name holds only tools the kernel has.
    const name = request.known ? `execute_tool ${request.name}` : 'execute_tool';
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL });
    if (!span.isRecording()) return next.handle();
    span.setAttributes({
      [ATTR.operation]: 'execute_tool',
      [ATTR.toolName]: request.name,
      [ATTR.toolCallId]: request.toolCallId,
      [ATTR.toolType]: 'function',
      [ATTR.toolKnown]: request.known,
      [ATTR.runId]: context.runId,
      ...(context.conversationId ? { [ATTR.conversationId]: context.conversationId } : {}),
      ...(this.captureContent ? { [ATTR.toolArguments]: request.arguments } : {}),
    });
    return traced(span, this.captureContent, next, (value) => {
      const outcome = value as KernelToolResult;
      if (outcome.error !== undefined) {
        // The model reads the error and the loop goes on: the call failed, the turn did not.
        // The error's text may quote the arguments: in the status only with content capture.
        span.setStatus({
          code: SpanStatusCode.ERROR,
          ...(this.captureContent ? { message: outcome.error } : {}),
        });
        span.setAttribute('error.type', 'tool_error');
      }
      if (this.captureContent)
        span.setAttribute(ATTR.toolResult, JSON.stringify(outcome.error ?? outcome.result ?? null));
    });
  }
}

/**
 * The inner layers run inside a span — subscribed with it active, so everything they start (store
 * operations, HTTP calls of other instrumentations) is its child — which records the one value they
 * emit, or their error, and ends when they settle.
 */
function traced(
  span: Span,
  details: boolean,
  next: CallHandler,
  onValue: (value: unknown) => void,
): Observable<unknown> {
  return new Observable((subscriber) =>
    withSpan(span, () =>
      next
        .handle()
        .pipe(
          tap({
            next: onValue,
            error: (error: unknown) => markFailed(span, error, details),
            finalize: () => span.end(),
          }),
        )
        .subscribe(subscriber),
    ),
  );
}
