import { useEffect, useRef, useState } from 'react';
import {
  ENTITY_STORAGE,
  initialConversation,
  newConversationId,
  rememberConversation,
} from './api.js';
import { Chat } from './chat.js';
import { ConversationList } from './conversation-list.js';

/** Narrower than this (px), the conversations are a drawer behind a menu button. */
const DRAWER_BELOW = 760;

const narrow = () => window.matchMedia(`(max-width: ${DRAWER_BELOW - 1}px)`).matches;

/**
 * `/`: the tenant's conversations (from the server, newest first) or a new one, and the chat of
 * the chosen one. The choice is in the tab's URL (`?conversation=`), so a reload comes back to it
 * whatever other tabs chose meanwhile, and remembered in this browser for a new tab. Below
 * {@link DRAWER_BELOW} px the list is a drawer: a labelled menu button opens it (focus moves into
 * it), Escape or a click outside closes it (focus back on the button).
 */
export function ChatPage() {
  const [current, setCurrent] = useState(initialConversation);
  const [entityId, setEntityId] = useState(() => localStorage.getItem(ENTITY_STORAGE) ?? 'me');
  const [turns, setTurns] = useState(0);
  const [drawer, setDrawer] = useState(false);
  const menu = useRef<HTMLButtonElement>(null);
  const sidebar = useRef<HTMLElement>(null);

  useEffect(() => rememberConversation(current), [current]);

  // Set when the drawer closes by Escape or a click outside: the focus goes back to the menu
  // button once the page beside the drawer is no longer inert.
  const refocus = useRef(false);
  const closeDrawer = (focusMenu: boolean) => {
    refocus.current = focusMenu;
    setDrawer(false);
  };
  const choose = (id: string) => {
    rememberConversation(id);
    setCurrent(id);
    setDrawer(false);
    // The chat of another conversation mounts focused; the same one gets the focus back here.
    requestAnimationFrame(() => document.getElementById('composer')?.focus());
  };

  useEffect(() => {
    if (!drawer) {
      if (refocus.current) menu.current?.focus();
      refocus.current = false;
      return;
    }
    sidebar.current?.querySelector<HTMLElement>('button, input')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !document.querySelector('dialog[open]')) closeDrawer(true);
    };
    const onResize = () => {
      if (!narrow()) setDrawer(false);
    };
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', onResize);
    return () => {
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', onResize);
    };
  }, [drawer]);

  return (
    <main className={`chat-page${drawer ? ' drawer-open' : ''}`}>
      <h1 className="sr-only">Chat</h1>
      <aside
        id="sidebar"
        ref={sidebar}
        className="sidebar"
        aria-label="Conversations"
        data-testid="sidebar"
      >
        <button
          type="button"
          data-testid="new-conversation"
          onClick={() => choose(newConversationId())}
        >
          + New conversation
        </button>
        <div className="list-scroll">
          <ConversationList
            current={current}
            extra={current}
            refresh={turns}
            manage
            onChoose={choose}
            onDeleted={(id) => {
              if (id === current) choose(newConversationId());
            }}
          />
        </div>
        <label className="entity">
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
      {drawer && (
        <div className="backdrop" data-testid="backdrop" onClick={() => closeDrawer(true)} />
      )}
      <div className="chat-column" inert={drawer}>
        <div className="chat-toolbar">
          <button
            ref={menu}
            type="button"
            className="menu secondary"
            data-testid="menu"
            aria-controls="sidebar"
            aria-expanded={drawer}
            onClick={() => setDrawer(!drawer)}
          >
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
              <path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" strokeWidth="2" />
            </svg>
            <span>Conversations</span>
          </button>
        </div>
        <Chat
          key={current}
          conversationId={current}
          entityId={entityId}
          onTurnFinished={() => setTurns((n) => n + 1)}
        />
      </div>
    </main>
  );
}
