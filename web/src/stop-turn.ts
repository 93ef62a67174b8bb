import { authHeaders, seg } from './api.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `DELETE …/chat/stream`: its status (0 when it could not be sent). Right after Send (`early`: no
 * answer yet) the server may not have opened the turn's stream yet (a cold database, a slow
 * start): a 404 is asked again, 200 ms apart, for up to 5 s, while `wanted()` (no other turn was
 * sent meanwhile: the Stop is for the conversation's running turn, whichever it is).
 */
export async function askStop(
  conversationId: string,
  early: boolean,
  wanted: () => boolean,
): Promise<number> {
  for (let tries = early ? 25 : 1; ; tries -= 1) {
    const status = await fetch(`/conversations/${seg(conversationId)}/chat/stream`, {
      method: 'DELETE',
      headers: authHeaders(),
    }).then(
      (response) => response.status,
      () => 0,
    );
    if (status !== 404 || tries <= 1) return status;
    await sleep(200);
    if (!wanted()) return status;
  }
}
