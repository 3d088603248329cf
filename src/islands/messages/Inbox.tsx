import { lazy, Suspense, useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { ListResult } from '../../../common/schemas/http.js';
import { MESSAGE_MAX_ATTACHMENTS, MESSAGE_MAX_CHARS } from '../../../common/messages.js';
import type { Conversation, MessageItem } from '../../../common/schemas/messages.js';
import { createInbox } from '../../lib/stores/messages.js';
import { LockedFiles, PriceField, PriceNote, priceOf, useCurrencySymbol } from './paid-message.js';
import type { TipLimits } from '../../../common/tips.js';
import TipButton from '../TipButton.js';
import { ReportMenuItem } from '../shared/ReportMenuItem.js';
import { islandZone } from '../../lib/local-time.js';
import { useMounted } from '../../lib/use-mounted.js';

/** The report dialog loads with the first "Report" click (as in the comments). */
const ReportDialog = lazy(() => import('../shared/ReportDialog.js').then((m) => ({ default: m.ReportDialog })));

export interface InboxProps {
  me: string;
  /** The signed-in user is a performer (who may block the fan of a thread). */
  isPerformer: boolean;
  conversations: ListResult<Conversation>;
  active: Conversation | null;
  messages: ListResult<MessageItem> | null;
  /** The site's tip limits when the viewer is a fan (who may tip the performer from the thread); null otherwise. */
  tipLimits?: TipLimits | null;
}

/**
 * A message's time: the hour when it is from today, else the day. Until the island has mounted, the day in UTC (what
 * the server printed: it knows neither the reader's zone nor their "today"); then in the reader's zone and language.
 */
const when = (iso: string, mounted: boolean) => {
  const d = new Date(iso);
  const where = islandZone(mounted);
  const today = mounted && new Date().toDateString() === d.toDateString();
  return today
    ? d.toLocaleTimeString(where.locale, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(where.locale, { month: 'short', day: 'numeric', timeZone: where.timeZone });
};

const preview = (c: Conversation, me: string) => {
  if (!c.lastMessage) return 'No messages yet';
  const text = c.lastMessage.text || (c.lastMessage.attachments ? `${c.lastMessage.attachments === 1 ? 'An attachment' : `${c.lastMessage.attachments} attachments`}` : '');
  return c.lastMessage.senderId === me ? `You: ${text}` : text;
};

/**
 * Messages: the conversation list and the open thread. On a phone they are two screens (the list at /messages, a
 * thread at /messages/<id> with a way back); on a wide screen they sit side by side. The thread shows the newest
 * messages first loaded, older ones on "Load older"; what arrives live is appended and, when on screen, marked read.
 */
export default function Inbox({ me, isPerformer, conversations, active, messages, tipLimits = null }: InboxProps) {
  const [inbox] = useState(() => createInbox(me, { conversations, active, messages }));
  const state = useStore(inbox.store);
  const mounted = useMounted();
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  // A performer's optional price for the files attached (paid-message.tsx).
  const [price, setPrice] = useState('');
  const [priceError, setPriceError] = useState<string | null>(null);
  const symbol = useCurrencySymbol();
  const fileInput = useRef<HTMLInputElement>(null);
  const log = useRef<HTMLOListElement>(null);
  const lastId = useRef<string | null>(null);
  // The received message whose report dialog is open.
  const [reporting, setReporting] = useState<string | null>(null);

  useEffect(() => {
    const off = inbox.listen();
    // Opening a thread reads it, and with it its message notifications (the bell), even when no message was unread.
    if (state.active && (state.active.fanId === me || state.active.performerId === me)) void inbox.markRead();
    return off;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [inbox]);

  // Keep the newest message in view when one is added at the end (not when older ones are loaded above).
  useLayoutEffect(() => {
    const newest = state.messages[state.messages.length - 1]?._id ?? null;
    if (newest !== lastId.current && log.current) log.current.scrollTop = log.current.scrollHeight;
    lastId.current = newest;
  }, [state.messages]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!text.trim() && files.length === 0) return;
    const priced = isPerformer && files.length ? priceOf(price, symbol) : ({ ok: true, value: 0 } as const);
    setPriceError(priced.ok ? null : priced.message);
    if (!priced.ok) return;
    if (await inbox.send(text, files, priced.value)) {
      setText('');
      setFiles([]);
      setPrice('');
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const current = state.active;
  // Only the two participants act on messages (an admin reads); only a received message is reported.
  const participant = Boolean(current && (current.fanId === me || current.performerId === me));
  return (
    <div className={current ? 'inbox inbox--thread' : 'inbox inbox--list'} data-testid="inbox">
      <nav className="inbox__list" aria-label="Conversations">
        {state.conversations.length === 0 ? <p className="empty" data-testid="conversations-empty">No conversations yet. Message a performer from their page.</p> : null}
        <ul data-testid="conversation-list">
          {state.conversations.map((c) => (
            <li key={c._id}>
              <a
                href={`/messages/${c._id}`}
                className={c._id === current?._id ? 'inbox__item is-active' : 'inbox__item'}
                aria-current={c._id === current?._id ? 'page' : undefined}
                data-testid="conversation-item"
                data-conversation-id={c._id}
              >
                <img src={c.other.avatar} alt="" width="40" height="40" className="inbox__avatar" />
                <span className="inbox__summary">
                  <span className="inbox__name">{c.other.name}</span>
                  <span className="inbox__preview">{preview(c, me)}</span>
                </span>
                <span className="inbox__meta">
                  <time dateTime={c.lastMessageAt}>{when(c.lastMessageAt, mounted)}</time>
                  {c.unreadCount ? <span className="inbox__unread" data-testid="conversation-unread" aria-label={`${c.unreadCount} unread`}>{c.unreadCount}</span> : null}
                </span>
              </a>
            </li>
          ))}
        </ul>
        {state.conversationsCursor ? <button type="button" className="btn" onClick={() => void inbox.loadMoreConversations()}>More conversations</button> : null}
      </nav>

      {current ? (
        <section className="inbox__thread" aria-label={`Conversation with ${current.other.name}`} data-testid="thread">
          <header className="inbox__head">
            <a href="/messages" className="inbox__back" data-testid="inbox-back">← All messages</a>
            <img src={current.other.avatar} alt="" width="32" height="32" className="inbox__avatar" />
            <h2 className="inbox__title">{current.other.role === 'performer' ? <a href={`/performers/${current.other.username}`}>{current.other.name}</a> : current.other.name}</h2>
            {tipLimits && current.fanId === me && current.other.role === 'performer' && !current.blocked ? (
              <TipButton performerId={current.performerId} performerName={current.other.name} context={{ type: 'conversation', id: current._id }} limits={tipLimits} />
            ) : null}
            {isPerformer && current.performerId === me ? (
              <button type="button" className="btn btn--link" onClick={() => void inbox.setBlocked(!current.blocked)} data-testid="block-toggle">
                {current.blocked ? 'Unblock' : 'Block'}
              </button>
            ) : null}
          </header>
          {state.olderCursor ? (
            <button type="button" className="btn inbox__older" disabled={state.loadingOlder} onClick={() => void inbox.loadOlder()} data-testid="load-older">
              {state.loadingOlder ? 'Loading…' : 'Load older'}
            </button>
          ) : null}
          <ol className="inbox__messages" ref={log} aria-live="polite" aria-label="Messages" data-testid="messages">
            {state.messages.map((m) => (
              <li key={m._id} className={m.senderId === me ? 'bubble bubble--mine' : 'bubble'} data-testid="message" data-message-id={m._id}>
                {m.text ? <p className="bubble__text">{m.text}</p> : null}
                {m.attachments.map((a) =>
                  a.kind === 'image' ? (
                    <img key={a._id} src={a.url} alt="Attached picture" className="bubble__media" width={a.width ?? undefined} height={a.height ?? undefined} loading="lazy" data-testid="message-image" />
                  ) : (
                    <video key={a._id} src={a.url} className="bubble__media" controls preload="metadata" data-testid="message-video" />
                  ),
                )}
                {m.locked ? <LockedFiles message={m} /> : null}
                <span className="bubble__meta">
                  <time dateTime={m.createdAt}>{when(m.createdAt, mounted)}</time>
                  {m.senderId === me && m.readAt ? <span data-testid="message-seen"> · Seen</span> : null}
                  {m.senderId === me && m.price > 0 ? <PriceNote message={m} /> : null}
                </span>
                {participant && m.senderId !== me ? (
                  <details className="bubble__menu" data-testid="message-menu">
                    <summary aria-label="More actions for this message">⋯</summary>
                    <ReportMenuItem onReport={() => setReporting(m._id)} testId="message-report" />
                  </details>
                ) : null}
              </li>
            ))}
          </ol>
          {reporting ? (
            <Suspense fallback={null}>
              <ReportDialog key={reporting} open targetType="message" targetId={reporting} what="this message" onClose={() => setReporting(null)} />
            </Suspense>
          ) : null}
          {current.canSend && !(current.blocked && current.fanId === me) ? (
            <form className="composer" onSubmit={onSubmit} data-testid="composer">
              <label htmlFor="composer-text" className="sr-only">Message</label>
              <textarea
                id="composer-text"
                value={text}
                maxLength={MESSAGE_MAX_CHARS}
                rows={2}
                placeholder="Write a message"
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey) {
                    e.preventDefault();
                    e.currentTarget.form?.requestSubmit();
                  }
                }}
                data-testid="composer-text"
              />
              <label className="btn composer__attach" title="Attach pictures or videos">
                <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
                  <path d="M20 11.5l-7.8 7.8a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.8-7.8" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
                <span className="sr-only">Attach pictures or videos</span>
                <input
                  ref={fileInput}
                  type="file"
                  accept="image/jpeg,image/png,image/webp,image/gif,video/mp4,video/quicktime,video/webm"
                  multiple
                  className="sr-only"
                  onChange={(e) => setFiles(Array.from(e.currentTarget.files ?? []).slice(0, MESSAGE_MAX_ATTACHMENTS))}
                  data-testid="composer-files"
                />
              </label>
              <button type="submit" className="btn btn--primary" disabled={state.sending} data-testid="composer-send">{state.sending ? 'Sending…' : 'Send'}</button>
              {files.length ? <p className="form__hint composer__files">{files.map((f) => f.name).join(', ')}</p> : null}
              {isPerformer && files.length ? <PriceField id="composer-price" value={price} onChange={setPrice} error={priceError} /> : null}
              {state.error ? <p className="form__error composer__files" role="alert" data-testid="composer-error">{state.error}</p> : null}
            </form>
          ) : (
            <p className="notice" data-testid="cannot-send">{current.whyNot ?? 'You cannot write in this conversation.'}</p>
          )}
        </section>
      ) : (
        <section className="inbox__thread inbox__placeholder" aria-label="Conversation">
          <p className="empty">Choose a conversation.</p>
        </section>
      )}
    </div>
  );
}
