import { useState } from 'react';
import { Chat } from './chat.js';

const LIST_STORAGE = 'agent-memory:conversations';

function storedList(): string[] {
  try {
    return JSON.parse(localStorage.getItem(LIST_STORAGE) ?? '[]') as string[];
  } catch {
    return [];
  }
}

function newConversationId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}

/** `/`: pick or start a conversation (the ids this browser used), and chat in it. */
export function ChatPage() {
  const [list, setList] = useState<string[]>(() => {
    const known = storedList();
    return known.length ? known : [newConversationId()];
  });
  const [current, setCurrent] = useState(list[0]!);
  const [entityId, setEntityId] = useState(
    () => localStorage.getItem('agent-memory:entity') ?? 'me',
  );

  const choose = (id: string) => {
    const next = [id, ...list.filter((known) => known !== id)];
    localStorage.setItem(LIST_STORAGE, JSON.stringify(next));
    setList(next);
    setCurrent(id);
  };
  // Remembered once the page has shown it, so a reload comes back to it.
  if (storedList()[0] !== current) localStorage.setItem(LIST_STORAGE, JSON.stringify(list));

  return (
    <main className="chat-page">
      <aside>
        <button data-testid="new-conversation" onClick={() => choose(newConversationId())}>
          New conversation
        </button>
        <ul data-testid="conversations">
          {list.map((id) => (
            <li key={id}>
              <button className={id === current ? 'current' : ''} onClick={() => choose(id)}>
                {id}
              </button>
            </li>
          ))}
        </ul>
        <label>
          Entity (long-term memory)
          <input
            data-testid="entity"
            value={entityId}
            onChange={(event) => {
              setEntityId(event.target.value);
              localStorage.setItem('agent-memory:entity', event.target.value);
            }}
          />
        </label>
      </aside>
      <Chat key={`${current}|${entityId}`} conversationId={current} entityId={entityId} />
    </main>
  );
}
