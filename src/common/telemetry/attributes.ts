/**
 * Attribute names of the package's spans: the OpenTelemetry GenAI and database semantic
 * conventions where they have a name, `agent_memory.*` for the package's own.
 */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolKnown: 'agent_memory.tool.known',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  runId: 'agent_memory.run_id',
  round: 'agent_memory.round',
  attempt: 'agent_memory.attempt',
  outcome: 'agent_memory.outcome',
  store: 'agent_memory.store',
  entityId: 'agent_memory.entity_id',
  longtermFlushed: 'agent_memory.longterm.flushed',
  longtermRefused: 'agent_memory.longterm.refused',
} as const;

/** The `db.system.name` of each built-in backend (`memory` is the package's own). */
export type StoreSystem = 'postgresql' | 'mysql' | 'sqlite' | 'redis' | 'memory';
