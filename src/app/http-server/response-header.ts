/** A response a header can be set on: Node's (Express's is one) or Fastify's reply. */
export type HeaderTarget =
  | { setHeader(name: string, value: string): unknown }
  | { header(name: string, value: string): unknown };

/** Sets a response header on Express's response, Node's, or Fastify's reply alike. */
export function setResponseHeader(response: HeaderTarget, name: string, value: string): void {
  if ('setHeader' in response && typeof response.setHeader === 'function')
    response.setHeader(name, value);
  else (response as { header(name: string, value: string): unknown }).header(name, value);
}

/** Answers a raw Node response (middleware on either platform) with a JSON body. */
export function writeJson(
  response: {
    statusCode: number;
    setHeader(name: string, value: string): unknown;
    end(body: string): unknown;
  },
  status: number,
  body: unknown,
): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify(body));
}
