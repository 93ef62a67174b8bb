import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

const llm = new FakeLlmServer();
let app: RunningApp;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

beforeAll(async () => {
  const url = await llm.start();
  app = await bootApp({
    ...embeddedEnv(tempDir()),
    LLM_PROVIDER: 'openai-compatible',
    LLM_BASE_URL: `${url}/v1`,
    LLM_MODEL: 'llava',
    LLM_MAX_RETRIES: '0',
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await llm.stop();
});

describe('the example app on LLM_PROVIDER=openai-compatible (an Ollama-like server)', () => {
  it('answers a turn with an image, and stores the image as sent', async () => {
    llm.enqueue(openAiCompletion('A red pixel.'));
    const message = [
      { type: 'text', text: 'What is this?' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
    ];
    const turn = await request(app.url)
      .post('/conversations/img-1/turns')
      .send({ message })
      .expect(201);
    expect(turn.body.reply.content).toBe('A red pixel.');
    const [sent] = llm.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.body.model).toBe('llava');
    expect((sent!.body.messages as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
    const stored = await request(app.url).get('/conversations/img-1/messages').expect(200);
    expect(stored.body.messages[0].content).toEqual(message);
  });

  it('describes message parts in its OpenAPI document', async () => {
    const doc = await request(app.url).get('/docs-json').expect(200);
    const turn = doc.body.components.schemas.TurnRequestDto.properties.message;
    expect(
      turn.oneOf[1].items.oneOf.map(
        (s: { properties: { type: { enum: string[] } } }) => s.properties.type.enum[0],
      ),
    ).toEqual(['text', 'image', 'file', 'reasoning']);
  });
});
