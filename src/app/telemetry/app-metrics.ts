import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Queue } from 'bull';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const STORE_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * The example app's Prometheus metrics (`GET /metrics`), derived from the package's spans as each
 * ends (the span-metrics pattern: one instrumentation, traces and metrics), plus the queue's depth
 * read at scrape time and the process's default metrics.
 */
export class AppMetrics {
  readonly registry = new Registry();
  private readonly turns = new Histogram({
    name: 'agent_memory_turn_duration_seconds',
    help: 'Duration of agent run attempts, by outcome (completed, failed, retrying)',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'agent_memory_run_retries_total',
    help: 'Run attempts after the first (queue retries, resumed runs)',
    registers: [this.registry],
  });
  private readonly modelCalls = new Histogram({
    name: 'agent_memory_model_call_duration_seconds',
    help: 'Duration of model calls, by model and outcome (ok, error)',
    labelNames: ['model', 'outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'agent_memory_tokens_total',
    help: 'Tokens of model calls, by model and direction (input, output)',
    labelNames: ['model', 'direction'],
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'agent_memory_tool_calls_total',
    help: 'Tool calls, by tool and outcome (ok, error)',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly storeOperations = new Histogram({
    name: 'agent_memory_store_operation_duration_seconds',
    help: 'Duration of store operations, by store, backend and operation',
    labelNames: ['store', 'backend', 'operation'],
    buckets: STORE_SECONDS,
    registers: [this.registry],
  });
  private readonly refusedWrites = new Counter({
    name: 'agent_memory_longterm_refused_writes_total',
    help: 'Long-term rows a run flushed that the seq guard refused as stale',
    registers: [this.registry],
  });
  private readonly formationLag = new Histogram({
    name: 'agent_memory_formation_lag_seconds',
    help: "From a turn's commit to the end of its memory formation job, by outcome",
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly formationOperations = new Counter({
    name: 'agent_memory_formation_operations_total',
    help: 'Operations formation jobs wrote, by type (add, update, invalidate, none)',
    labelNames: ['op'],
    registers: [this.registry],
  });
  private readonly formationTokens = new Counter({
    name: 'agent_memory_formation_tokens_total',
    help: "Tokens of formation jobs' model calls, by tenant and direction (input, output)",
    labelNames: ['tenant', 'direction'],
    registers: [this.registry],
  });
  private queue?: Queue;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const queueOf = () => this.queue;
    new Gauge({
      name: 'agent_memory_queue_jobs',
      help: 'Jobs of the run queue, by state (Bull only)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const queue = queueOf();
        if (!queue) return;
        const counts = await queue.getJobCounts();
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
  }

  /** Reports the Bull queue's depth at each scrape. */
  watchQueue(queue: Queue): void {
    this.queue = queue;
  }

  /** Turns one ended span of the package into metrics (other spans are ignored). */
  record(span: ReadableSpan): void {
    const attributes = span.attributes;
    const seconds = span.duration[0] + span.duration[1] / 1e9;
    const failed = span.status.code === 2;
    switch (attributes['gen_ai.operation.name']) {
      case 'invoke_agent': {
        this.turns.observe(
          { outcome: String(attributes['agent_memory.outcome'] ?? 'failed') },
          seconds,
        );
        if (Number(attributes['agent_memory.attempt'] ?? 1) > 1) this.retries.inc();
        const refused = Number(attributes['agent_memory.longterm.refused'] ?? 0);
        if (refused > 0) this.refusedWrites.inc(refused);
        return;
      }
      case 'chat': {
        const model = String(attributes['gen_ai.request.model'] ?? 'unknown');
        this.modelCalls.observe({ model, outcome: failed ? 'error' : 'ok' }, seconds);
        const input = Number(attributes['gen_ai.usage.input_tokens'] ?? 0);
        const output = Number(attributes['gen_ai.usage.output_tokens'] ?? 0);
        if (input > 0) this.tokens.inc({ model, direction: 'input' }, input);
        if (output > 0) this.tokens.inc({ model, direction: 'output' }, output);
        return;
      }
      case 'form_memories': {
        this.formationLag.observe(
          { outcome: String(attributes['agent_memory.formation.outcome'] ?? 'failed') },
          Number(attributes['agent_memory.formation.lag_ms'] ?? 0) / 1000,
        );
        for (const op of ['add', 'update', 'invalidate', 'none']) {
          const count = Number(attributes[`agent_memory.formation.operations.${op}`] ?? 0);
          if (count > 0) this.formationOperations.inc({ op }, count);
        }
        // The app's entity ids are `<tenant>/<id>` (its API keys' tenants), else one tenant's.
        const entity = String(attributes['agent_memory.entity_id'] ?? '');
        const tenant = entity.includes('/') ? entity.slice(0, entity.indexOf('/')) : 'default';
        const input = Number(attributes['gen_ai.usage.input_tokens'] ?? 0);
        const output = Number(attributes['gen_ai.usage.output_tokens'] ?? 0);
        if (input > 0) this.formationTokens.inc({ tenant, direction: 'input' }, input);
        if (output > 0) this.formationTokens.inc({ tenant, direction: 'output' }, output);
        return;
      }
      case 'execute_tool':
        this.toolCalls.inc({
          // A name the model made up is not a label value: the series would be unbounded.
          tool:
            attributes['agent_memory.tool.known'] === false
              ? 'unknown'
              : String(attributes['gen_ai.tool.name']),
          outcome: failed ? 'error' : 'ok',
        });
        return;
    }
    const store = attributes['agent_memory.store'];
    if (store !== undefined)
      this.storeOperations.observe(
        {
          store: String(store),
          backend: String(attributes['db.system.name']),
          operation: String(attributes['db.operation.name']),
        },
        seconds,
      );
  }
}
