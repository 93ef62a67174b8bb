/** The method by which an answer object gives its own JSON text (a symbol: never serialized). */
export const JSON_TEXT = Symbol('agentMemory.jsonText');

/**
 * An answer that is an ordinary object (its fields are what any serializer or interceptor sees)
 * and can also give the JSON text of itself, made without serializing its parts again.
 */
export interface JsonTextAnswer {
  [JSON_TEXT](): string;
}

function isJsonTextAnswer(value: unknown): value is JsonTextAnswer {
  return typeof value === 'object' && value !== null && JSON_TEXT in value;
}

/**
 * Has this request's answer sent as its own JSON text where the platform allows it. On Fastify the
 * reply's serializer sends a {@link JsonTextAnswer} as its text and anything else as Fastify does
 * without a schema (`JSON.stringify`; a string as it is), so an app's interceptor that wraps the
 * answer gets it serialized as the object it is; the type is JSON, as Fastify's own would say. On
 * Express nothing changes (`res.json` of the object).
 */
export function sendJsonTextAsIs(response: object): void {
  const reply = response as { raw?: unknown; serializer?: unknown; header?: unknown };
  if (reply.raw === undefined || typeof reply.serializer !== 'function') return;
  (reply.serializer as (serialize: (payload: unknown) => string) => unknown).call(
    reply,
    (payload) =>
      isJsonTextAnswer(payload)
        ? payload[JSON_TEXT]()
        : typeof payload === 'string'
          ? payload
          : JSON.stringify(payload),
  );
  // Fastify names the type of what its own serializer writes, not of what a custom one does.
  (reply.header as (name: string, value: string) => unknown).call(
    reply,
    'content-type',
    'application/json; charset=utf-8',
  );
}
