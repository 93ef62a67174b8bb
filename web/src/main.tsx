import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatPage } from './chat-page.js';
import { Inspector } from './inspector.js';
import { KeyBar } from './key-bar.js';

/** The page: the chat at `/`, the memory inspector at `/inspector`. */
function App() {
  // A new key remounts the page, which reloads what it shows with that key.
  const [generation, setGeneration] = useState(0);
  const page = location.pathname.startsWith('/inspector') ? (
    <Inspector key={generation} />
  ) : (
    <ChatPage key={generation} />
  );
  return (
    <>
      <KeyBar onChange={() => setGeneration((n) => n + 1)} />
      {page}
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
