/**
 * The "restarted process" of the runner test: a new Node process that opens the chat memory store
 * on the same database, makes a new session with the same id, and runs one more turn with the SDK's
 * real runner against the parent's local Responses server.
 * argv: <module options as JSON> <session id> <server base URL> <user input>.
 * Prints the run's final output as a JSON line, then `done`.
 */
import 'reflect-metadata';
import { ChatMemorySession } from '../../src/modules/openai-agents/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { localRunner, weatherAgent } from './weather-agent.js';

const [options, sessionId, baseURL, input] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];

const memory = await openChatMemoryModule(JSON.parse(options));
try {
  const session = new ChatMemorySession({ store: memory.subject, sessionId });
  const result = await localRunner(baseURL).run(weatherAgent, input, { session });
  process.stdout.write(`${JSON.stringify(result.finalOutput)}\ndone\n`);
} finally {
  await memory.close();
}
