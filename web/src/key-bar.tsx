import { useEffect, useRef, useState } from 'react';
import { NEED_KEY_EVENT, apiKey, setApiKey } from './api.js';

/**
 * The header: the page's name, links, and the API key this tab sends (when the app has
 * `API_KEYS`). On a narrow screen the key form folds behind a "Key" button; a 401 anywhere on the
 * page opens it and puts the focus in the field.
 */
export function KeyBar({
  onChange,
  page,
}: {
  /** A key was saved: the new one, and the one the tab sent before (`''` for none). */
  onChange: (key: string, previous: string) => void;
  page: string;
}) {
  const [key, setKey] = useState(apiKey());
  const [open, setOpen] = useState(false);
  const field = useRef<HTMLInputElement>(null);

  // Each request for the key (a 401) opens the form, then (once it shows) focuses the field.
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    const needKey = () => {
      setOpen(true);
      setAsked((n) => n + 1);
    };
    window.addEventListener(NEED_KEY_EVENT, needKey);
    return () => window.removeEventListener(NEED_KEY_EVENT, needKey);
  }, []);
  useEffect(() => {
    if (asked > 0) field.current?.focus();
  }, [asked]);

  const link = (href: string, name: string) => (
    <a href={href} {...(page === href ? { 'aria-current': 'page' as const } : {})}>
      {name}
    </a>
  );
  return (
    <header className={`bar${open ? ' key-open' : ''}`}>
      <a className="brand" href="/">
        Agent memory
      </a>
      <nav aria-label="Pages">
        {link('/', 'Chat')}
        {link('/inspector', 'Inspector')}
        <a href="/docs">API</a>
      </nav>
      <button
        type="button"
        className="key-toggle secondary"
        aria-expanded={open}
        aria-controls="key-form"
        onClick={() => setOpen(!open)}
      >
        Key{apiKey() ? ' ✓' : ''}
      </button>
      <form
        id="key-form"
        className="key"
        onSubmit={(event) => {
          event.preventDefault();
          const previous = apiKey();
          setApiKey(key.trim());
          setOpen(false);
          onChange(key.trim(), previous);
        }}
      >
        <label className="sr-only" htmlFor="api-key">
          API key
        </label>
        <input
          id="api-key"
          ref={field}
          data-testid="api-key"
          type="password"
          autoComplete="off"
          placeholder="API key (if the app has API_KEYS)"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setOpen(false);
          }}
        />
        <button data-testid="save-key" type="submit">
          Use key
        </button>
      </form>
    </header>
  );
}
