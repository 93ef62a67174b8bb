import { useState } from 'react';
import { apiKey, setApiKey } from './api.js';

/** The header: links, and the API key this browser sends (when the app has `API_KEYS`). */
export function KeyBar({ onChange }: { onChange: () => void }) {
  const [key, setKey] = useState(apiKey());
  return (
    <header className="bar">
      <strong>Agent memory</strong>
      <nav>
        <a href="/">Chat</a>
        <a href="/inspector">Inspector</a>
        <a href="/docs">API</a>
      </nav>
      <form
        className="key"
        onSubmit={(event) => {
          event.preventDefault();
          setApiKey(key.trim());
          onChange();
        }}
      >
        <input
          data-testid="api-key"
          type="password"
          placeholder="API key (if the app has API_KEYS)"
          value={key}
          onChange={(event) => setKey(event.target.value)}
        />
        <button data-testid="save-key" type="submit">
          Use key
        </button>
      </form>
    </header>
  );
}
