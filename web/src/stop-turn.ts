import { authHeaders, seg } from './api.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `DELETE …/chat/stream`: its status (0 when it could not be sent). Right after Send (`early`) the
 * server may not have opened the turn's stream yet: a 404 is asked again, 5 times 200 ms apart.
 */
export async function askStop(conversationId: string, early: boolean): Promise<number> {
  for (let tries = early ? 5 : 1; ; tries -= 1) {
    const status = await fetch(`/conversations/${seg(conversationId)}/chat/stream`, {
      method: 'DELETE',
      headers: authHeaders(),
    }).then(
      (response) => response.status,
      () => 0,
    );
    if (status !== 404 || tries <= 1) return status;
    await sleep(200);
  }
}
