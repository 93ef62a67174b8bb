import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { newConversationId, rememberConversation } from './api.js';
import { ChatPage } from './chat-page.js';
import { Inspector } from './inspector.js';
import { KeyBar } from './key-bar.js';

/** The page: the chat at `/`, the memory inspector at `/inspector`. */
function App() {
  // A new key remounts the page, which reloads what it shows with that key.
  const [generation, setGeneration] = useState(0);
  const inspector = location.pathname.startsWith('/inspector');
  return (
    <div className={inspector ? 'app app-inspector' : 'app app-chat'}>
      <KeyBar
        page={inspector ? '/inspector' : '/'}
        onChange={(key, previous) => {
          // Another key may be another tenant: its conversations are not the last key's. A first
          // key (the page could read nothing before) keeps the conversation the tab opened.
          if (previous && previous !== key) rememberConversation(newConversationId());
          setGeneration((n) => n + 1);
        }}
      />
      {inspector ? <Inspector key={generation} /> : <ChatPage key={generation} />}
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
