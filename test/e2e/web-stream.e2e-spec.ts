import { describe, expect, it } from '@jest/globals';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openAiAnswer, openAiStream } from '../support/fake-llm-server.js';
import { KEYS, VIEWPORTS, api, openWithKey, shot, webSuite } from '../support/web-harness.js';

/** A TCP relay to the app on a loopback port of its own; `cut()` destroys its open connections. */
class Relay {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly url: string,
  ) {}

  static async start(target: URL): Promise<Relay> {
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new Relay(server, sockets, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A reply of `count` words, streamed one word every `delayMs` by the fake model. */
const slowReply = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(' ');

/** The conversation the page shows (its id, from this browser's storage). */
const currentConversation = (page: import('playwright-core').Page) =>
  page.evaluate(() => localStorage.getItem('agent-memory:current')!);

describe('Stop and resume of a streaming reply (GET and DELETE /conversations/:id/chat/stream)', () => {
  const web = webSuite();

  it.each(VIEWPORTS)(
    '$name: resumes a reply after a reload mid-reply: it completes, and is stored once',
    async (viewport) => {
      const key = viewport.name === 'wide' ? KEYS[0]! : KEYS[4]!;
      const reply = slowReply(24);
      web.llm.reset();
      web.llm.enqueue(openAiAnswer(reply, [], 150));
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, key);
      await page.getByTestId('composer').fill('Tell me something slowly');
      await page.getByTestId('composer').press('Enter');
      const messages = page.getByTestId('messages');
      await messages.getByText('word2', { exact: false }).waitFor();
      const conversation = await currentConversation(page);
      await page.reload();
      // The turn is not stored yet (turns commit whole): the page asks to resume it, shows its
      // user message (the stream's first chunk) and the reply from its start, then live to its end.
      await messages.getByText('Tell me something slowly').waitFor();
      await messages.getByText('word23').waitFor({ timeout: 15_000 });
      await page.getByTestId('send').waitFor();
      expect(await page.getByTestId('message-user').count()).toBe(1);
      expect(await page.getByTestId('message-assistant').count()).toBe(1);
      expect((await page.getByTestId('message-assistant').innerText()).trim()).toBe(reply);
      await shot(page, `stream-${viewport.name}-resumed`);
      const stored = await api<{ messages: Array<{ role: string; content: unknown }> }>(
        web.app().url,
        key,
        `/conversations/${conversation}/messages`,
      );
      expect(stored.body.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(stored.body.messages[1]!.content).toBe(reply);
      expect(web.llm.requests).toHaveLength(1);
      // A reload now shows the stored turn, once.
      await page.reload();
      await messages.getByText('word23').waitFor();
      expect(await page.getByTestId('message-user').count()).toBe(1);
      expect(await page.getByTestId('message-assistant').count()).toBe(1);
    },
    60_000,
  );

  it.each(VIEWPORTS)(
    '$name: Stop ends the reply here and on the server: the partial reply is marked "Stopped", nothing is stored',
    async (viewport) => {
      const key = viewport.name === 'wide' ? KEYS[1]! : KEYS[5]!;
      web.llm.reset();
      // The reply holds after its 5th word, so it is still running when Stop is pressed.
      web.llm.enqueue(
        openAiStream(slowReply(30).split(/(?<= )/), [], {
          delayMs: 150,
          stall: { index: 6, ms: 30_000 },
        }),
      );
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, key);
      await page.getByTestId('composer').fill('Count slowly');
      await page.getByTestId('composer').press('Enter');
      await page.getByTestId('messages').getByText('word2', { exact: false }).waitFor();
      const conversation = await currentConversation(page);
      const stopped = page.waitForResponse(
        (response) =>
          response.request().method() === 'DELETE' && response.url().endsWith('/chat/stream'),
      );
      await page.getByTestId('stop').click();
      expect((await stopped).status()).toBe(204);
      const mark = page.getByTestId('stopped');
      await mark.waitFor();
      expect(await mark.innerText()).toMatch(/^Stopped/);
      expect(await page.getByTestId('not-sent').count()).toBe(0);
      await page.getByTestId('send').waitFor();
      const partial = await page.getByTestId('message-assistant').innerText();
      expect(partial).not.toContain('word29');
      // The stopped message is back in the composer, to send again.
      expect(await page.getByTestId('composer').inputValue()).toBe('Count slowly');
      await shot(page, `stream-${viewport.name}-stopped`);
      // Past the time the model would have taken to finish: still nothing stored of the turn.
      await sleep(5_000);
      const stored = await api<{ messages: unknown[]; version: number }>(
        web.app().url,
        key,
        `/conversations/${conversation}/messages`,
      );
      expect(stored.body.messages).toEqual([]);
      // The list has nothing of it: the conversation's only turn was stopped.
      const listed = await api<{ conversations: Array<{ conversationId: string }> }>(
        web.app().url,
        key,
        '/conversations',
      );
      expect(listed.body.conversations.map((c) => c.conversationId)).not.toContain(conversation);
      // Nothing running any more: a second Stop finds no turn.
      const again = await api(web.app().url, key, `/conversations/${conversation}/chat/stream`, {
        method: 'DELETE',
      });
      expect(again.status).toBe(404);
    },
    60_000,
  );

  it('picks a reply up after its connection dropped mid-stream: it completes, stored once', async () => {
    const key = KEYS[2]!;
    const reply = slowReply(24);
    web.llm.reset();
    web.llm.enqueue(openAiAnswer(reply, [], 150));
    // The page reaches the app through a relay whose connections the test can cut.
    const relay = await Relay.start(new URL(web.app().url));
    const page = await web.open();
    await openWithKey(page, relay.url, key);
    await page.getByTestId('composer').fill('Keep talking');
    await page.getByTestId('composer').press('Enter');
    const messages = page.getByTestId('messages');
    await messages.getByText('word2', { exact: false }).waitFor();
    const conversation = await currentConversation(page);
    // The connection under the streaming reply is cut; new ones go through.
    const resumed = page.waitForRequest((request) => request.url().includes('/chat/stream?'));
    relay.cut();
    await resumed;
    await messages.getByText('word23').waitFor({ timeout: 15_000 });
    await page.getByTestId('send').waitFor();
    expect(await page.getByTestId('message-user').count()).toBe(1);
    expect(await page.getByTestId('message-assistant').count()).toBe(1);
    expect((await page.getByTestId('message-assistant').innerText()).trim()).toBe(reply);
    expect(await page.getByTestId('not-sent').count()).toBe(0);
    const stored = await api<{ messages: Array<{ role: string }> }>(
      web.app().url,
      key,
      `/conversations/${conversation}/messages`,
    );
    expect(stored.body.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(web.llm.requests).toHaveLength(1);
    await relay.close();
  }, 60_000);

  it('each tab keeps its conversation: a reload resumes its running reply whatever another tab chose', async () => {
    const key = KEYS[4]!;
    const reply = slowReply(20);
    web.llm.reset();
    web.llm.enqueue(openAiAnswer(reply, [], 150));
    const first = await web.open();
    await openWithKey(first, web.app().url, key);
    await first.getByTestId('composer').fill('Stay with this tab');
    await first.getByTestId('composer').press('Enter');
    await first.getByTestId('messages').getByText('word2', { exact: false }).waitFor();
    const conversation = await currentConversation(first);
    expect(new URL(first.url()).searchParams.get('conversation')).toBe(conversation);
    // A second tab of the same browser starts another conversation: the browser remembers that one.
    const second = await first.context().newPage();
    await openWithKey(second, web.app().url, key);
    await second.getByTestId('new-conversation').click();
    await second.waitForFunction(
      (first) => localStorage.getItem('agent-memory:current') !== first,
      conversation,
    );
    // The first tab, reloaded, is still on its own conversation and follows its reply to the end.
    await first.reload();
    await first.getByTestId('messages').getByText('Stay with this tab').waitFor();
    await first.getByTestId('messages').getByText('word19').waitFor({ timeout: 15_000 });
    expect(new URL(first.url()).searchParams.get('conversation')).toBe(conversation);
    expect(await first.getByTestId('message-user').count()).toBe(1);
  }, 60_000);

  it('a new conversation can be renamed and deleted during its first reply', async () => {
    const key = KEYS[5]!;
    web.llm.reset();
    web.llm.enqueue(openAiAnswer(slowReply(12), [], 150));
    const page = await web.open();
    await openWithKey(page, web.app().url, key);
    await page.getByTestId('composer').fill('Name me while you answer');
    await page.getByTestId('composer').press('Enter');
    await page.getByTestId('messages').getByText('word1', { exact: false }).waitFor();
    const conversation = await currentConversation(page);
    const item = page.locator(`li[data-conversation-id="${conversation}"]`);
    await item.getByTestId('rename').click();
    await page.getByTestId('rename-input').fill('Named early');
    await page.getByTestId('rename-input').press('Enter');
    await item.getByText('Named early').waitFor();
    // The reply ends, the turn is stored, and the name given meanwhile is the server's too.
    await page.getByTestId('messages').getByText('word11').waitFor({ timeout: 15_000 });
    const listed = async () =>
      (
        await api<{ conversations: Array<{ conversationId: string; title?: string }> }>(
          web.app().url,
          key,
          '/conversations',
        )
      ).body.conversations.find((c) => c.conversationId === conversation);
    for (let tries = 0; tries < 50 && (await listed())?.title !== 'Named early'; tries += 1)
      await sleep(100);
    expect((await listed())?.title).toBe('Named early');
    // A second conversation, deleted during its first reply: the reply stops, nothing is stored.
    web.llm.enqueue(
      openAiStream(slowReply(30).split(/(?<= )/), [], {
        delayMs: 150,
        stall: { index: 4, ms: 30_000 },
      }),
    );
    await page.getByTestId('new-conversation').click();
    await page.getByTestId('composer').fill('Delete me while you answer');
    await page.getByTestId('composer').press('Enter');
    await page.getByTestId('messages').getByText('word1', { exact: false }).waitFor();
    const doomed = await currentConversation(page);
    expect(doomed).not.toBe(conversation);
    await page.locator(`li[data-conversation-id="${doomed}"]`).getByTestId('delete').click();
    await page.getByTestId('confirm-delete').click();
    await page.waitForFunction(
      (doomed) => localStorage.getItem('agent-memory:current') !== doomed,
      doomed,
    );
    const history = await api<{ messages: unknown[] }>(
      web.app().url,
      key,
      `/conversations/${doomed}/messages`,
    );
    expect(history.body.messages).toEqual([]);
    expect(await listed()).toBeDefined();
  }, 60_000);

  it('a Stop in one tab marks the reply "Stopped" in another tab following it', async () => {
    const key = KEYS[3]!;
    web.llm.reset();
    // The reply holds after its 7th word until it is stopped: however long the second tab takes
    // to open (a loaded machine), the reply is still running when Stop is pressed.
    web.llm.enqueue(
      openAiStream(slowReply(30).split(/(?<= )/), [], {
        delayMs: 150,
        stall: { index: 8, ms: 55_000 },
      }),
    );
    const first = await web.open();
    await openWithKey(first, web.app().url, key);
    await first.getByTestId('composer').fill('Count for both tabs');
    await first.getByTestId('composer').press('Enter');
    await first.getByTestId('messages').getByText('word2', { exact: false }).waitFor();
    // A second tab of the same browser opens the conversation (its link) and follows the reply.
    const conversation = await currentConversation(first);
    const second = await first.context().newPage();
    await openWithKey(second, web.app().url, key, `/?conversation=${conversation}`);
    await second.getByTestId('messages').getByText('word4', { exact: false }).waitFor();
    await first.getByTestId('stop').click();
    await first.getByTestId('stopped').waitFor();
    await second.getByTestId('stopped').waitFor();
    expect(await second.getByTestId('message-user').count()).toBe(1);
  }, 60_000);
});
