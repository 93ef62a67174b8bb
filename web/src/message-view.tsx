import type { UIMessage } from 'ai';

/** One chat message: its texts, and each tool call with its input and result. */
export function MessageView({ message }: { message: UIMessage }) {
  return (
    <div className={`message ${message.role}`} data-testid={`message-${message.role}`}>
      {message.parts.map((part, index) => {
        if (part.type === 'text') return <p key={index}>{part.text}</p>;
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
    </div>
  );
}
