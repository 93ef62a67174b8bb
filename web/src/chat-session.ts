import { Chat, useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart, type UIMessage } from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { apiErrorOf, authHeaders, getJson, keyOf, seg } from './api.js';
import { plainMessage, reportFailure } from './errors.js';
import { askStop } from './stop-turn.js';
import type { MessageMark } from './message-view.js';
import { storedToUiMessages } from './stored-to-ui.js';
import type { MessagesPage, StoredMessage } from './types.js';

/** Messages loaded at first, and by each "Earlier messages". */
const PAGE = 200;
/** Resumes tried after a reply's stream dropped on a network error, ~500 ms apart. */
const RESUME_TRIES = 3;

/** The user message of the turn a resumed stream replays (its first, transient chunk). */
interface TurnUser {
  id: string;
  parts: UIMessage['parts'];
}

const textOf = (message: Pick<UIMessage, 'parts'>) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The chat's requests: an error answer becomes an `ApiError` with its status (so the page can say
 * it in plain words); a resume `GET` answered 404 (a server without the resume route) means there
 * is nothing to resume.
 */
const chatFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.ok) return response;
  if ((init?.method ?? 'GET') === 'GET' && response.status === 404)
    return new Response(null, { status: 204 });
  throw await apiErrorOf(response, keyOf(init?.headers));
};

/**
 * One conversation's chat: its stored history (the newest {@link PAGE} messages, more on demand),
 * new turns streamed through `useChat` from `POST /conversations/:id/chat` (only the newest message
 * is sent), a turn still running on the server resumed after a reload or a dropped stream
 * (`GET …/chat/stream?version=`), Stop (`DELETE …/chat/stream`), and failed messages kept, marked,
 * for Retry.
 */
export function useChatSession(
  conversationId: string,
  entityId: string,
  onTurnFinished?: () => void,
) {
  const entity = useRef(entityId);
  entity.current = entityId;
  const handlers = useRef({
    onData: (_part: { type: string; data: unknown }) => {},
    onFinish: (_event: {
      message: UIMessage;
      isAbort: boolean;
      isDisconnect: boolean;
      isError: boolean;
    }) => {},
  });
  const chat = useMemo(
    () =>
      new Chat<UIMessage>({
        id: conversationId,
        transport: new DefaultChatTransport<UIMessage>({
          api: `/conversations/${seg(conversationId)}/chat`,
          headers: () => authHeaders(),
          fetch: chatFetch,
          prepareSendMessagesRequest: ({ messages }) => ({
            body: {
              message: messages.at(-1),
              ...(entity.current ? { entityId: entity.current } : {}),
            },
          }),
          prepareReconnectToStreamRequest: ({ id, body }) => ({
            api: `/conversations/${seg(id)}/chat/stream?version=${(body as { version?: number }).version ?? 0}`,
            headers: authHeaders(),
          }),
        }),
        onData: (part) => handlers.current.onData(part),
        onFinish: (event) => handlers.current.onFinish(event),
      }),
    [conversationId],
  );
  const { messages, status } = useChat({ chat });
  const [loadError, setLoadError] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  const [marks, setMarks] = useState<Record<string, MessageMark>>({});
  const [reconnecting, setReconnecting] = useState(false);
  // The text of a turn the user stopped (nothing of it stored), for the composer to hold again.
  const [stoppedText, setStoppedText] = useState<{ text: string }>();
  // The stored messages loaded so far (oldest first) and the position of the next older page.
  const [stored, setStored] = useState<StoredMessage[]>([]);
  const [before, setBefore] = useState<number>();
  // How many of the chat's messages were folded from `stored` (the rest streamed on this page).
  const folded = useRef(0);
  // The version of the history the page holds; what the last resume did; whether Stop was pressed.
  const version = useRef(0);
  const outcome = useRef<'none' | 'streamed' | 'disconnect'>('none');
  const stopping = useRef(false);
  const recovering = useRef(false);
  const gone = useRef(false);
  // Sends so far: a Stop still asking for its turn gives up once another turn was sent.
  const sends = useRef(0);

  const marksNow = useRef(marks);
  marksNow.current = marks;
  const mark = (id: string, value?: MessageMark) =>
    setMarks((current) => {
      const next = { ...current };
      if (value) next[id] = value;
      else delete next[id];
      return next;
    });

  /** Shows `history` (oldest first) in place of what was folded before, keeping the rest. */
  const show = (history: StoredMessage[], next: number | undefined, replaceAll = false) => {
    const ui = storedToUiMessages(history);
    const failed = (message: UIMessage) => marksNow.current[message.id]?.kind === 'failed';
    chat.messages = [
      ...ui,
      ...(replaceAll ? chat.messages.filter(failed) : chat.messages.slice(folded.current)),
    ];
    folded.current = ui.length;
    setStored(history);
    setBefore(next);
  };

  const lastUser = () => chat.messages.findLast((message) => message.role === 'user');

  /** Marks the turn's user message "Not sent" and drops the partial reply after it. */
  const failTurn = (error: string, reply?: string) => {
    const user = lastUser();
    if (reply) chat.messages = chat.messages.filter((message) => message.id !== reply);
    if (user) mark(user.id, { kind: 'failed', error });
  };

  /** After a dropped stream: resume the turn (~500 ms apart, a few times), else sync with the server. */
  const recover = async (reply: string) => {
    recovering.current = true;
    setReconnecting(true);
    let failure: unknown;
    try {
      for (let attempt = 0; attempt < RESUME_TRIES && !gone.current; attempt += 1) {
        await sleep(500);
        let page: MessagesPage;
        try {
          page = await getJson<MessagesPage>(
            `/conversations/${seg(conversationId)}/messages?last=${PAGE}`,
          );
        } catch (error) {
          failure = error;
          continue;
        }
        // The turn goes on on the server: follow it (a turn already in `page` is not replayed).
        outcome.current = 'none';
        await chat.resumeStream({ body: { version: page.version } });
        const resumed = outcome.current as 'none' | 'streamed' | 'disconnect';
        if (resumed === 'streamed') return;
        if (resumed === 'none' && chat.status !== 'error') {
          if (page.version > version.current) {
            // Nothing to follow: the turn committed meanwhile, and the stored history has it.
            version.current = page.version;
            show(page.messages, page.before, true);
          } else failTurn('The connection dropped and this message was not saved.', reply);
          return;
        }
        failure = chat.error;
      }
      if (!gone.current) failTurn(plainMessage(failure ?? new TypeError('Failed to fetch')), reply);
    } finally {
      recovering.current = false;
      setReconnecting(false);
    }
  };

  handlers.current = {
    onData: (part) => {
      if (part.type === 'data-turn-stopped') {
        // Another tab (or the server) stopped the turn this page follows: nothing of it is saved.
        const { messageId } = part.data as { messageId: string };
        const shown = chat.messages.some((message) => message.id === messageId);
        const target = shown ? messageId : lastUser()?.id;
        if (target) mark(target, { kind: 'stopped' });
        return;
      }
      if (part.type !== 'data-turn-user') return;
      const user = part.data as TurnUser;
      const shown = chat.messages;
      if (shown.some((message) => message.id === user.id)) return;
      const own = shown.slice(folded.current).findLast((message) => message.role === 'user');
      // After a dropped stream the page shows the turn's message already, under its own id.
      if (own && textOf(own) === textOf(user)) return;
      chat.messages = [...shown, { id: user.id, role: 'user', parts: user.parts }];
    },
    onFinish: ({ message, isAbort, isDisconnect, isError }) => {
      outcome.current = isDisconnect ? 'disconnect' : 'streamed';
      if (isAbort) {
        if (stopping.current) {
          const shown = chat.messages.some((m) => m.id === message.id && m.parts.length > 0);
          const target = shown ? message.id : lastUser()?.id;
          if (target) mark(target, { kind: 'stopped' });
        }
        return;
      }
      if (isDisconnect) {
        if (!recovering.current) void recover(message.id);
        return;
      }
      if (isError) {
        failTurn(reportFailure(chat.error), message.id);
        return;
      }
      onTurnFinished?.();
      // The history's version now (a resume after a later drop asks from it).
      getJson<MessagesPage>(`/conversations/${seg(conversationId)}/messages?last=1`)
        .then((page) => (version.current = page.version))
        .catch(() => {});
    },
  };

  useEffect(() => {
    gone.current = false;
    folded.current = 0;
    getJson<MessagesPage>(`/conversations/${seg(conversationId)}/messages?last=${PAGE}`)
      .then((page) => {
        version.current = page.version;
        show(page.messages, page.before);
        setLoadError(undefined);
        setLoaded(true);
        // A turn still running on the server (this page was reloaded mid-reply): follow it.
        if (chat.status === 'ready') void chat.resumeStream({ body: { version: page.version } });
      })
      .catch((failure: unknown) => setLoadError(reportFailure(failure)));
    return () => {
      gone.current = true;
      void chat.stop();
    };
    // `show` only sets state: the history loads again when the conversation changes, not on renders.
  }, [chat]);

  return {
    messages,
    status,
    marks,
    loaded,
    reconnecting,
    /** The text of the turn last stopped here (a new object each time), for the composer. */
    stoppedText,
    loadError,
    setLoadError,
    hasEarlier: before !== undefined,
    /** An older page, folded with what is loaded as one history: no turn is cut at a page boundary. */
    loadEarlier: () =>
      getJson<MessagesPage>(
        `/conversations/${seg(conversationId)}/messages?before=${before}&limit=${PAGE}`,
      )
        .then((page) => {
          show([...page.messages, ...stored], page.before);
          setLoadError(undefined);
        })
        .catch((failure: unknown) => setLoadError(reportFailure(failure))),
    send: (text: string, files: FileUIPart[]) => {
      sends.current += 1;
      void chat.sendMessage(files.length ? { text, files } : { text });
    },
    /**
     * Stops the reply: here (`stop()`) and on the server, which then stores nothing of the turn.
     * A Stop pressed before the server opened the turn's stream is sent again a few times; one that
     * came too late (the turn was saved, 409) or found nothing running shows the stored history.
     */
    stop: async () => {
      const user = lastUser();
      stopping.current = true;
      const early = chat.status === 'submitted';
      const sent = sends.current;
      const asked = askStop(conversationId, early, () => sends.current === sent);
      try {
        await chat.stop();
      } finally {
        stopping.current = false;
      }
      const status = await asked;
      // 204: stopped, nothing of the turn stored: its message goes back to the composer. (202: asked,
      // not ended yet — it may still be stored, so nothing is put back.)
      if (status === 204 && user) setStoppedText({ text: textOf(user) });
      if (status === 204 || status === 202) return;
      for (const [id, value] of Object.entries(marksNow.current))
        if (value.kind === 'stopped') mark(id);
      try {
        const page = await getJson<MessagesPage>(
          `/conversations/${seg(conversationId)}/messages?last=${PAGE}`,
        );
        version.current = page.version;
        show(page.messages, page.before, true);
      } catch (failure) {
        setLoadError(reportFailure(failure));
      }
    },
    /** Sends a failed message again: the same text and attachments. */
    retry: (id: string) => {
      const index = chat.messages.findIndex((message) => message.id === id);
      if (index < 0) return;
      const failed = chat.messages[index]!;
      // It, and the partial reply right after it, go; turns sent since stay. The resent message
      // comes last, where the server stores it too.
      let end = index + 1;
      while (chat.messages[end]?.role === 'assistant') end += 1;
      chat.messages = [...chat.messages.slice(0, index), ...chat.messages.slice(end)];
      mark(id);
      sends.current += 1;
      const files = failed.parts.filter((part): part is FileUIPart => part.type === 'file');
      void chat.sendMessage(
        files.length ? { text: textOf(failed), files } : { text: textOf(failed) },
      );
    },
    /** Takes a failed message off the list. */
    remove: (id: string) => {
      chat.messages = chat.messages.filter((message) => message.id !== id);
      mark(id);
    },
  };
}
