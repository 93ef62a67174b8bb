import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { liveSessionMessages, ChatMemorySession } from '../../src/modules/openai-agents/index.js';
import { startTypeScriptChild } from '../support/child-process.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { FakeLlmServer } from '../support/fake-llm-server.js';
import { sessionBackends } from './session-backends.js';
import {
  describeInput,
  functionCallOutput,
  localRunner,
  messageOutput,
  reasoningOutput,
  responsesReply,
  weatherAgent,
} from './weather-agent.js';

const CHILD = fileURLToPath(new URL('./restart-turn.child.ts', import.meta.url));

describe.each(sessionBackends())(
  "the SDK's Runner with a ChatMemorySession on $label",
  (backend) => {
    const server = new FakeLlmServer();
    let baseURL: string;

    beforeAll(async () => {
      baseURL = `${await server.start()}/v1`;
    });
    afterAll(() => server.stop());

    it('keeps several turns with a tool call and reasoning, across a restart', async () => {
      const sessionId = randomUUID();
      const callId = `call_${randomUUID().slice(0, 8)}`;
      server.enqueue(
        responsesReply([
          reasoningOutput('rs_1', 'The user wants the weather: call the tool.'),
          functionCallOutput('fc_1', callId, 'get_weather', { city: 'Paris' }),
        ]),
        responsesReply([messageOutput('msg_1', 'It is sunny and 24°C in Paris.')]),
        responsesReply([messageOutput('msg_2', 'Paris, as I said.')]),
      );

      const memory = await openChatMemoryModule(backend.options);
      const session = new ChatMemorySession({ store: memory.subject, sessionId });
      const runner = localRunner(baseURL);
      const first = await runner.run(weatherAgent, 'Weather in Paris?', { session });
      const second = await runner.run(weatherAgent, 'Which city was that?', { session });
      expect([first.finalOutput, second.finalOutput]).toEqual([
        'It is sunny and 24°C in Paris.',
        'Paris, as I said.',
      ]);

      const firstTurn = [
        'user: Weather in Paris?',
        'reasoning: The user wants the weather: call the tool.',
        `call ${callId} get_weather({"city":"Paris"})`,
        `output ${callId}: Sunny and 24°C in Paris`,
      ];
      const history = [
        ...firstTurn,
        'assistant: It is sunny and 24°C in Paris.',
        'user: Which city was that?',
        'assistant: Paris, as I said.',
      ];
      const inputs = server.requests.map((request) => describeInput(request.body.input));
      expect(inputs).toEqual([firstTurn.slice(0, 1), firstTurn, history.slice(0, 6)]);

      // The library's own reading of the same conversation.
      const stored = liveSessionMessages(await memory.subject.get(sessionId));
      expect(
        stored.map(({ role, toolCalls, toolCallId }) => [
          role,
          toolCalls?.[0]?.name ?? toolCallId ?? null,
        ]),
      ).toEqual([
        ['user', null],
        ['assistant', null],
        ['assistant', 'get_weather'],
        ['tool', callId],
        ['assistant', null],
        ['user', null],
        ['assistant', null],
      ]);
      const before = await session.getItems();
      if (backend.shared) await memory.close();

      // "Restart": another process (memory: a new session object on the same store) runs turn 3.
      server.enqueue(responsesReply([messageOutput('msg_3', 'Still sunny in Paris.')]));
      let restarted: Awaited<ReturnType<typeof openChatMemoryModule>>;
      if (backend.shared) {
        const child = startTypeScriptChild(CHILD, [
          JSON.stringify(backend.options),
          sessionId,
          baseURL,
          'And tomorrow?',
        ]);
        expect((await child.exited).split('\n')).toContain('"Still sunny in Paris."');
        restarted = await openChatMemoryModule(backend.options);
      } else {
        restarted = memory;
        const fresh = new ChatMemorySession({ store: memory.subject, sessionId });
        const third = await localRunner(baseURL).run(weatherAgent, 'And tomorrow?', {
          session: fresh,
        });
        expect(third.finalOutput).toBe('Still sunny in Paris.');
      }
      expect(describeInput(server.requests.at(-1)!.body.input)).toEqual([
        ...history,
        'user: And tomorrow?',
      ]);

      const after = new ChatMemorySession({ store: restarted.subject, sessionId });
      const items = await after.getItems();
      expect(items.slice(0, before.length)).toStrictEqual(before);
      expect(items.slice(before.length).map((item) => (item as { role?: string }).role)).toEqual([
        'user',
        'assistant',
      ]);
      await after.clearSession();
      await restarted.close();
    });
  },
);
