import type { UIMessage } from 'ai';
import { MarkdownText } from './markdown.js';

/** What the page knows of a message beyond its parts: stopped by the user, or not sent. */
export type MessageMark = { kind: 'stopped' } | { kind: 'failed'; error: string };

/**
 * One chat message: its texts as Markdown, its images, each tool call with its input and result;
 * marked "Stopped" when the user stopped the reply, or "Not sent" (with Retry and Remove) when it
 * failed.
 */
export function MessageView({
  message,
  mark,
  onRetry,
  onRemove,
}: {
  message: UIMessage;
  mark?: MessageMark;
  onRetry?: () => void;
  onRemove?: () => void;
}) {
  const failed = mark?.kind === 'failed';
  return (
    <article
      className={`message ${message.role}${failed ? ' failed' : ''}`}
      data-testid={`message-${message.role}`}
      aria-label={message.role === 'user' ? 'You said' : 'Reply'}
    >
      {message.parts.map((part, index) => {
        if (part.type === 'text') return <MarkdownText key={index} text={part.text} />;
        if (part.type === 'file')
          return part.mediaType.startsWith('image/') ? (
            <img
              key={index}
              className="attachment"
              data-testid="message-image"
              src={part.url}
              alt={part.filename ?? 'attached image'}
            />
          ) : (
            <p key={index} className="attachment">
              File: {part.filename ?? part.mediaType}
            </p>
          );
        if (part.type === 'dynamic-tool')
          return (
            <div key={index} className="tool" data-testid="tool-part">
              <div>
                <span className="tool-name">{part.toolName}</span>
                <code>{JSON.stringify(part.input)}</code>
              </div>
              {part.state === 'output-available' && (
                <div className="tool-output" data-testid="tool-output">
                  → <code>{JSON.stringify(part.output)}</code>
                </div>
              )}
              {part.state === 'output-error' && (
                <div className="tool-error">✗ {part.errorText}</div>
              )}
            </div>
          );
        return null;
      })}
      {mark?.kind === 'stopped' && (
        <p className="mark stopped" data-testid="stopped">
          Stopped{message.role === 'user' ? ' before the reply began' : ''} — this turn was not
          saved.
        </p>
      )}
      {failed && (
        <div className="mark failed" data-testid="not-sent" role="alert">
          <p>
            <strong>Not sent.</strong> {mark.error}
          </p>
          <div className="mark-actions">
            <button type="button" data-testid="retry" onClick={onRetry}>
              Retry
            </button>
            <button type="button" className="secondary" data-testid="remove" onClick={onRemove}>
              Remove
            </button>
          </div>
        </div>
      )}
    </article>
  );
}
