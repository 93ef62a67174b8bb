import type { ContentPart } from '../../../common/messages/content-parts.js';
import { ConflictException, Injectable } from '@nestjs/common';
import { RunBelongsToAnotherConversationError } from '../../agent/errors/agent.errors.js';
import { randomUUID } from 'node:crypto';
import type {
  AgentRunInput,
  AgentRunRecord,
  AgentRunResult,
} from '../../agent/interfaces/agent-run.interface.js';
import { AgentMemoryHttpServices } from '../agent-memory-http.services.js';
import { AgentMemoryExceptionFilter } from '../errors/agent-memory-exception.filter.js';
import type { TenantScope } from '../tenancy/tenant-scope.js';
import { runIdOfIdempotencyKey } from './idempotency-key.js';
import { TurnsInFlight } from './turns-in-flight.js';
import { presentRecord, presentResult } from './run-presenter.js';
import type { SseStream } from './sse-stream.js';

/** A turn as the routes describe it, before tenant scoping. */
export interface TurnRequest {
  conversationId: string;
  /** The user's message: text, or content parts. */
  message: string | ContentPart[];
  entityId?: string;
  idempotencyKey?: string;
}

/** What a POST answers: the committed turn (201), or a run that is queued or in progress (202). */
export type TurnOutcome =
  | { status: 201; result: AgentRunResult }
  | { status: 202; run: { runId: string; status: AgentRunRecord['status'] } };

/**
 * Runs turns for the routes: scopes ids to the tenant, maps an `Idempotency-Key` to its run (a
 * repeated key returns that run's result, or its id while it is queued or running, and never runs a
 * second turn; a key whose run failed runs it again once, resuming its recorded steps — nothing of a
 * failed turn was stored), and presents results with the tenant's own ids.
 */
@Injectable()
export class TurnsService {
  constructor(
    private readonly services: AgentMemoryHttpServices,
    private readonly errors: AgentMemoryExceptionFilter,
    private readonly inFlight: TurnsInFlight,
  ) {}

  /**
   * The run input of a request to run now, and the outcome of an earlier POST with the same key, if
   * any. With a key, the run is reserved atomically: of concurrent POSTs, one runs the turn and the
   * others get its id (202) or, once it is done, its result (201).
   */
  async prepare(
    scope: TenantScope,
    request: TurnRequest,
  ): Promise<{ input: AgentRunInput; earlier?: TurnOutcome }> {
    const input = this.inputOf(scope, request);
    if (request.idempotencyKey === undefined) return { input };
    const record = await this.services.agent
      .reserveRun({
        runId: input.runId!,
        conversationId: input.conversationId,
        ...(input.entityId !== undefined ? { entityId: input.entityId } : {}),
      })
      .catch(keyOfAnotherConversation);
    return record ? { input, earlier: outcomeOf(scope, record) } : { input };
  }

  /** Runs the turn to its commit. */
  async run(scope: TenantScope, request: TurnRequest): Promise<TurnOutcome> {
    const { input, earlier } = await this.prepare(scope, request);
    if (earlier) return earlier;
    const result = await this.inFlight.track(this.services.agent.run(input));
    return { status: 201, result: presentResult(scope, result) };
  }

  /**
   * Queues the turn: 202 with its run id. With a key, concurrent POSTs queue it once (the same
   * reservation as a synchronous turn); a repeated key answers its run as it stands, and a run that
   * failed for good after an attempt is not queued again (send a new key).
   */
  async submit(scope: TenantScope, request: TurnRequest): Promise<TurnOutcome> {
    const agent = this.services.agent;
    if (request.idempotencyKey === undefined) {
      const { runId } = await agent.submit(this.inputOf(scope, request));
      return { status: 202, run: { runId, status: 'queued' } };
    }
    // A run that failed for good after it ran is not queued again (its job may still be in the
    // queue's failed set under the same id): the answer says so, and a new key runs the turn anew.
    // One that failed before any attempt (its submission did) is queued again with the same key.
    const conversationId = scope.scoped(request.conversationId, 'conversationId');
    const known = await agent.getRun(runIdOfIdempotencyKey(scope.tenant, request.idempotencyKey));
    if (
      known?.status === 'failed' &&
      (known.attempts ?? 0) > 0 &&
      known.conversationId === conversationId
    )
      return outcomeOf(scope, known);
    // Otherwise the same atomic reservation as a synchronous turn: one caller queues it.
    const { input, earlier } = await this.prepare(scope, request);
    if (earlier) return earlier;
    const { runId } = await agent.submit(input, { reserved: true });
    return { status: 202, run: { runId, status: 'queued' } };
  }

  private inputOf(scope: TenantScope, request: TurnRequest): AgentRunInput {
    return {
      conversationId: scope.scoped(request.conversationId, 'conversationId'),
      ...(request.entityId !== undefined
        ? { entityId: scope.scoped(request.entityId, 'entityId') }
        : {}),
      message:
        typeof request.message === 'string'
          ? request.message
          : { role: 'user', content: request.message },
      runId:
        request.idempotencyKey === undefined
          ? randomUUID()
          : runIdOfIdempotencyKey(scope.tenant, request.idempotencyKey),
    };
  }

  /**
   * Streams a prepared turn: `run`, then `token`, `tool_call`, `tool_result` as they happen, then
   * `done` (the run result) or `error` (`{ statusCode, error, message }`). A client that leaves
   * does not stop the turn: it runs to its commit and `GET /runs/:runId` shows it.
   */
  stream(scope: TenantScope, input: AgentRunInput, sse: SseStream): Promise<void> {
    return this.inFlight.track(this.streamEvents(scope, input, sse));
  }

  private async streamEvents(
    scope: TenantScope,
    input: AgentRunInput,
    sse: SseStream,
  ): Promise<void> {
    sse.send('run', { runId: input.runId });
    try {
      for await (const event of this.services.agent.stream(input)) {
        if (event.type === 'result') sse.send('done', presentResult(scope, event.result));
        else if (event.type === 'token') sse.send('token', { text: event.text });
        else if (event.type === 'tool_call') sse.send('tool_call', event.call);
        else sse.send('tool_result', event);
      }
    } catch (error) {
      sse.send('error', this.errors.toBody(error));
    } finally {
      sse.end();
    }
  }
}

/** What an earlier run answers: its result once completed (201), else its id and status (202). */
function outcomeOf(scope: TenantScope, record: AgentRunRecord): TurnOutcome {
  const shown = presentRecord(scope, record);
  return shown.status === 'completed' && shown.result
    ? { status: 201, result: shown.result }
    : { status: 202, run: { runId: shown.runId, status: shown.status } };
}

/** A key already used on another conversation: a 409 that speaks of the key, not of run ids. */
function keyOfAnotherConversation(error: unknown): never {
  if (error instanceof RunBelongsToAnotherConversationError)
    throw new ConflictException(
      'This Idempotency-Key was already used for another conversation: use a new key for this one',
    );
  throw error;
}
