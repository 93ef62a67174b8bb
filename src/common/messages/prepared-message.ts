import type { ChatRole } from './chat-message.interface.js';

/**
 * A validated message, ready for a backend to write: its id (given or assigned) and its canonical
 * JSON encoding, id included, which every backend stores as is and parses on read.
 */
export interface PreparedMessage {
  readonly id: string;
  readonly role: ChatRole;
  readonly json: string;
}
