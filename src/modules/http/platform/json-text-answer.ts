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
 * Has this request's answer sent as its own JSON text where the platform allows it, and as the
 * object it is everywhere else — so an app's interceptor that wraps the answer gets it serialized
 * as an object, as before:
 * - Fastify: the reply's serializer sends a {@link JsonTextAnswer} as its text and anything else as
 *   Fastify does without a schema (`JSON.stringify`; a string as it is), typed JSON as Fastify's
 *   own would type it;
 * - Express: `res.json` of a {@link JsonTextAnswer} sends its text, typed as `res.json` types it,
 *   unless the app set `json spaces`, `json replacer` or `json escape` (then `res.json` as always).
 */
export function sendJsonTextAsIs(response: object): void {
  if (isFastifyReply(response)) {
    response.serializer((payload) =>
      isJsonTextAnswer(payload)
        ? payload[JSON_TEXT]()
        : typeof payload === 'string'
          ? payload
          : JSON.stringify(payload),
    );
    // Fastify names the type of what its own serializer writes, not of what a custom one does.
    response.header('content-type', 'application/json; charset=utf-8');
  } else if (isExpressResponse(response) && !changesJson(response.app)) {
    const json = response.json;
    response.json = function (this: ExpressResponseLike, body: unknown) {
      if (!isJsonTextAnswer(body)) return json.call(this, body);
      if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
      return this.send(body[JSON_TEXT]());
    };
  }
}

/** Fastify's reply, as far as this uses it. */
interface FastifyReplyLike {
  raw: unknown;
  serializer(serialize: (payload: unknown) => string): unknown;
  header(name: string, value: string): unknown;
}

/** Express's response, as far as this uses it. */
interface ExpressResponseLike {
  app: { get(setting: string): unknown };
  json(body: unknown): unknown;
  get(field: string): unknown;
  set(field: string, value: string): unknown;
  send(body: string): unknown;
}

function isFastifyReply(response: object): response is FastifyReplyLike {
  return 'raw' in response && typeof (response as FastifyReplyLike).serializer === 'function';
}

function isExpressResponse(response: object): response is ExpressResponseLike {
  const candidate = response as Partial<ExpressResponseLike>;
  return typeof candidate.json === 'function' && typeof candidate.app?.get === 'function';
}

/** Whether an Express app set how `res.json` writes (then its own serializer is kept). */
function changesJson(app: ExpressResponseLike['app']): boolean {
  return ['json spaces', 'json replacer', 'json escape'].some(
    (setting) => app.get(setting) !== undefined,
  );
}
