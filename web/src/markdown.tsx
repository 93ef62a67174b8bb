import { type ComponentProps, useRef, useState } from 'react';
import Markdown, { type Components, type ExtraProps } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** A button that copies `text()` to the clipboard and says "Copied" for a moment. */
export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [copied, setCopied] = useState<boolean>();
  return (
    <button
      type="button"
      className="copy secondary"
      aria-label={copied ? 'Copied' : label}
      title={label}
      onClick={() => {
        navigator.clipboard.writeText(text()).then(
          () => setCopied(true),
          () => setCopied(false),
        );
        setTimeout(() => setCopied(undefined), 2000);
      }}
    >
      {copied === undefined ? 'Copy' : copied ? 'Copied' : 'Copy failed'}
    </button>
  );
}

/** A fenced code block with a "Copy" button over it. */
function CodeBlock({ node: _node, ...props }: ComponentProps<'pre'> & ExtraProps) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <CopyButton
        label="Copy code"
        text={() => (pre.current?.textContent ?? '').replace(/\n$/, '')}
      />
      <pre ref={pre} tabIndex={0} {...props} />
    </div>
  );
}

const components: Components = {
  pre: CodeBlock,
  // Links leave the page in a new tab, telling the other site nothing of this one.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  // A model's text may carry what an injected prompt wrote: an image from another site would be
  // fetched at once, its URL telling that site whatever was put in it. Images are links instead,
  // opened only if the user chooses (attached images are file parts, shown as images).
  img: ({ node: _node, src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noopener noreferrer">
      {`Image: ${alt || (typeof src === 'string' ? src : '') || 'untitled'}`}
    </a>
  ),
  // A wide table scrolls inside its own box, not the message list.
  table: ({ node: _node, ...props }) => (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Table">
      <table {...props} />
    </div>
  ),
};

/**
 * Message text as Markdown (GitHub flavour: tables, strikethrough, task lists, autolinks). Raw HTML
 * in the text is shown as text, never made into elements: react-markdown's default, with no
 * rehype-raw; link and image URLs are sanitized by its default `urlTransform`, and images are shown as
 * links, never fetched by themselves.
 */
export function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </Markdown>
    </div>
  );
}
