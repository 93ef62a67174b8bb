/** Who wrote a message. */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

/** The roles a message may have, in a form that can be checked at run time. */
export const CHAT_ROLES: readonly ChatRole[] = ['system', 'user', 'assistant', 'tool'];
