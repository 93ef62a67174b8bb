import { useChatSession } from './chat-session.js';
import { Composer } from './composer.js';
import { useFollowNewest } from './follow-newest.js';
import { MessageView } from './message-view.js';

/** Prompts offered in an empty conversation. */
const EXAMPLES = [
  'My name is Ada and I live in Paris.',
  'Remember that my favourite colour is green.',
  'What do you remember about me?',
  'Summarize what we talked about so far.',
];

/**
 * One conversation: its messages (scrolled to the newest, following new text while the user is at
 * the bottom), a welcome with example prompts when it is empty, errors said once where they belong,
 * and the composer.
 */
export function Chat({
  conversationId,
  entityId,
  onTurnFinished,
}: {
  conversationId: string;
  entityId: string;
  onTurnFinished?: () => void;
}) {
  const session = useChatSession(conversationId, entityId, onTurnFinished);
  const { list, content, following, jumpToNewest, keepPosition } = useFollowNewest();
  const { messages, status, marks } = session;
  const busy = status === 'submitted' || status === 'streaming';
  const empty = session.loaded && messages.length === 0 && !busy;

  return (
    <section className="chat" aria-label="Conversation">
      <div className="messages-box">
        <div
          className="messages"
          data-testid="messages"
          ref={list}
          tabIndex={0}
          role="log"
          aria-label="Messages"
          aria-busy={busy}
        >
          <div className="messages-content" ref={content}>
            {session.hasEarlier && (
              <button
                className="secondary earlier"
                data-testid="earlier"
                onClick={() => {
                  keepPosition();
                  void session.loadEarlier();
                }}
              >
                Earlier messages
              </button>
            )}
            {empty && (
              <div className="welcome" data-testid="welcome">
                <h2>Ask anything.</h2>
                <p>
                  This conversation is remembered: reload the page or come back later and it is
                  still here. What you tell it about yourself (“My name is Ada. I live in Paris.”)
                  is formed into memories after each reply — see them, with where they came from, in
                  the Inspector; “Actually I moved to Lyon” supersedes and keeps the history. The
                  offline demo only repeats what you say and reads a few plain statements like
                  these: set a real model (OPENAI_API_KEY, or any provider) for the rest.
                </p>
                <div className="examples">
                  {EXAMPLES.map((example) => (
                    <button
                      key={example}
                      type="button"
                      className="secondary"
                      data-testid="example"
                      onClick={() => session.send(example, [])}
                    >
                      {example}
                    </button>
                  ))}
                </div>
              </div>
            )}
            {messages.map((message) => (
              <MessageView
                key={message.id}
                message={message}
                mark={marks[message.id]}
                onRetry={() => session.retry(message.id)}
                onRemove={() => session.remove(message.id)}
              />
            ))}
            {status === 'submitted' && (
              <div className="status" role="status">
                Thinking…
              </div>
            )}
            {session.reconnecting && (
              <div className="status" role="status">
                Connection lost: reconnecting…
              </div>
            )}
            {session.loadError && (
              <div className="error" data-testid="chat-error" role="alert">
                {session.loadError}
              </div>
            )}
          </div>
        </div>
        {!following && (
          <button
            type="button"
            className="jump"
            data-testid="jump-to-newest"
            onClick={jumpToNewest}
          >
            Jump to newest ↓
          </button>
        )}
      </div>
      <Composer
        conversationId={conversationId}
        busy={busy}
        restore={session.stoppedText}
        onSend={(text, files) => {
          jumpToNewest();
          session.send(text, files);
        }}
        onStop={() => void session.stop()}
        onError={session.setLoadError}
      />
    </section>
  );
}
