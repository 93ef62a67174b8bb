import { request } from 'node:http';

/** An answer read whole: its status and its body's bytes. */
export interface WholeAnswer {
  status: number;
  body: Buffer;
}

/**
 * POSTs a JSON body on a connection of its own, closed once the answer is read, and reads the
 * whole answer. For requests sent one after another to an app whose answers are large: `fetch`
 * sends the next one on the previous one's kept-alive connection, and the server's idle clock
 * starts when it has handed its answer to the kernel, the client's only once it has read it all. A
 * client slow to read a large answer (a loaded machine) can then send on a connection the server
 * is closing after its keep-alive timeout, and the request fails (`other side closed`, or
 * `write EPIPE` while its body is still being sent). Nothing is reused here, so nothing can race.
 */
export function postOnOwnConnection(url: string, json: string): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(json),
        connection: 'close',
      },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => resolve({ status: answer.statusCode!, body: Buffer.concat(chunks) }));
    });
    outgoing.end(json);
  });
}
