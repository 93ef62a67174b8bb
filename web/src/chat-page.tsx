import { useState } from 'react';
import { Chat } from './chat.js';
import { ConversationList } from './conversation-list.js';

const CURRENT_STORAGE = 'agent-memory:current';
const ENTITY_STORAGE = 'agent-memory:entity';

function newConversationId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * `/`: the tenant's conversations (from the server, newest first) or a new one, and the chat of
 * the chosen one. The choice is remembered in this browser, so a reload comes back to it.
 */
export function ChatPage() {
  const [current, setCurrent] = useState(
    () => localStorage.getItem(CURRENT_STORAGE) ?? newConversationId(),
  );
  const [entityId, setEntityId] = useState(() => localStorage.getItem(ENTITY_STORAGE) ?? 'me');
  const [turns, setTurns] = useState(0);

  const choose = (id: string) => {
    localStorage.setItem(CURRENT_STORAGE, id);
    setCurrent(id);
  };
  if (localStorage.getItem(CURRENT_STORAGE) !== current)
    localStorage.setItem(CURRENT_STORAGE, current);

  return (
    <main className="chat-page">
      <aside>
        <button data-testid="new-conversation" onClick={() => choose(newConversationId())}>
          New conversation
        </button>
        <ConversationList current={current} extra={current} refresh={turns} onChoose={choose} />
        <label>
          Entity (long-term memory)
          <input
            data-testid="entity"
            value={entityId}
            onChange={(event) => {
              setEntityId(event.target.value);
              localStorage.setItem(ENTITY_STORAGE, event.target.value);
            }}
          />
        </label>
      </aside>
      <Chat
        key={`${current}|${entityId}`}
        conversationId={current}
        entityId={entityId}
        onTurnFinished={() => setTurns((n) => n + 1)}
      />
    </main>
  );
}
