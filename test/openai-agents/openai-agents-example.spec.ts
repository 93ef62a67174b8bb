import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { join } from 'node:path';
import { FakeLlmServer } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';
import {
  describeInput,
  functionCallOutput,
  messageOutput,
  responsesReply,
} from './weather-agent.js';

const llm = new FakeLlmServer();
const VARIABLES = [
  'OPENAI_BASE_URL',
  'LLM_MODEL',
  'CHAT_MEMORY_URI',
  'OPENAI_API_KEY',
  'OPENAI_AGENTS_DISABLE_TRACING',
];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  // The example reads its endpoint and database from the environment when its module loads.
  process.env.OPENAI_BASE_URL = `${await llm.start()}/v1`;
  process.env.LLM_MODEL = 'gpt-test';
  process.env.CHAT_MEMORY_URI = `sqlite:${join(tempDir('openai-agents-example-'), 'chat.sqlite')}`;
  process.env.OPENAI_API_KEY = 'test-key';
  process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
});
afterAll(async () => {
  for (const name of VARIABLES)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  await llm.stop();
});

describe('example: WeatherChatService (the SDK runner with a ChatMemorySession)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    const { WeatherChatModule } = await import('../../examples/openai-agents-session.js');
    moduleRef = await Test.createTestingModule({ imports: [WeatherChatModule] }).compile();
    await moduleRef.init();
  });
  afterAll(() => moduleRef?.close());

  it('keeps the conversation between turns, and takes back the last exchange', async () => {
    const { WeatherChatService } = await import('../../examples/openai-agents-session.js');
    const chat = moduleRef.get(WeatherChatService);
    const before = llm.requests.length; // the file's tests share the server, in any order
    llm.enqueue(
      responsesReply([functionCallOutput('fc_1', 'call_1', 'get_weather', { city: 'Oslo' })]),
      responsesReply([messageOutput('msg_1', 'Sunny in Oslo.')]),
      responsesReply([messageOutput('msg_2', 'Oslo.')]),
      responsesReply([messageOutput('msg_3', 'Oslo, again.')]),
    );
    expect(await chat.ask('c1', 'Weather in Oslo?')).toBe('Sunny in Oslo.');
    expect(await chat.ask('c1', 'Which city?')).toBe('Oslo.');
    await chat.undoLastExchange('c1');
    expect(await chat.ask('c1', 'Which city, once more?')).toBe('Oslo, again.');

    const firstTurn = [
      'user: Weather in Oslo?',
      'call call_1 get_weather({"city":"Oslo"})',
      'output call_1: Sunny in Oslo',
      'assistant: Sunny in Oslo.',
    ];
    expect(describeInput(llm.requests[before + 2]!.body.input)).toEqual([
      ...firstTurn,
      'user: Which city?',
    ]);
    // The undone exchange (question and answer) is not sent again.
    expect(describeInput(llm.requests[before + 3]!.body.input)).toEqual([
      ...firstTurn,
      'user: Which city, once more?',
    ]);
  });

  it('takes back an exchange that called a tool whole: its call, result, answer and question', async () => {
    const { WeatherChatService } = await import('../../examples/openai-agents-session.js');
    const chat = moduleRef.get(WeatherChatService);
    const before = llm.requests.length;
    llm.enqueue(
      responsesReply([functionCallOutput('fc_2', 'call_2', 'get_weather', { city: 'Oslo' })]),
      responsesReply([messageOutput('msg_4', 'Sunny in Oslo.')]),
      responsesReply([messageOutput('msg_5', 'Bergen, I think.')]),
    );
    expect(await chat.ask('c2', 'Weather in Oslo?')).toBe('Sunny in Oslo.');
    await chat.undoLastExchange('c2');
    expect(await chat.ask('c2', 'Weather in Bergen?')).toBe('Bergen, I think.');
    expect(describeInput(llm.requests[before + 2]!.body.input)).toEqual([
      'user: Weather in Bergen?',
    ]);
    await chat.undoLastExchange('c2');
    await chat.undoLastExchange('c2'); // nothing left: a no-op
  });
});
