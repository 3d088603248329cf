import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { COMMENT_MAX_LENGTH } from '../../common/limits.js';
import type { Role, EngagementObjectType } from '../../common/enums.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { CommentItem, CommentSearchResult, LockedDiscussion } from '../../common/schemas/engagement.js';
import {
  comments as commentsStore,
  createComment,
  deleteComment,
  editComment,
  emptyCommentState,
  loadComments,
  lockComments,
  seedComments,
  subscribeComments,
} from '../lib/stores/comments.js';
import { formatCount, nounFor } from '../../common/plural.js';
import '../styles/engagement.css';
import { ReportMenuItem } from './shared/ReportMenuItem.js';

export interface CommentsProps {
  objectType: EngagementObjectType;
  objectId: string;
  /** The signed-in viewer as the page rendered it; null for a guest (who reads and gets a login prompt). */
  viewer: { _id: string; role: Role } | null;
  /** The first page, when the page rendered it. */
  initial?: CommentSearchResult | null;
  /**
   * The page found the item locked for this viewer: no comments are loaded or watched, only the public count
   * and what would open the discussion are shown. Also reached when the API answers 403 `LOCKED`.
   */
  locked?: LockedDiscussion | null;
  /** Where "subscribe" / "buy" leads (the performer's page, or the item's own page). */
  unlockHref?: string | null;
}

/** The report dialog loads with the first "Report" click: guests, who are sent to log in instead, never download it. */
const ReportDialog = lazy(() => import('./shared/ReportDialog.js').then((m) => ({ default: m.ReportDialog })));

/** "2026-05-01 14:03" in UTC: the same text on the server and in every browser. */
const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function CommentEditor({ comment, onDone }: { comment: CommentItem; onDone: () => void }) {
  const [text, setText] = useState(comment.content);
  const [file, setFile] = useState<File | null>(null);
  const [removeImage, setRemoveImage] = useState(false);
  const [saving, setSaving] = useState(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!text.trim()) return;
    setSaving(true);
    const changes: { content?: string; image?: Blob; removeImage?: boolean } = {};
    if (text.trim() !== comment.content) changes.content = text;
    if (file) changes.image = file;
    else if (removeImage) changes.removeImage = true;
    const done = Object.keys(changes).length === 0 || (await editComment(comment, changes));
    setSaving(false);
    if (done) onDone();
  };
  return (
    <form className="comment__edit" onSubmit={onSubmit} data-testid="comment-edit-form">
      <textarea aria-label="Edit comment" value={text} maxLength={COMMENT_MAX_LENGTH} onChange={(e) => setText(e.target.value)} data-testid="comment-edit-input" />
      <label className="form__hint">
        Picture <input type="file" accept="image/*" onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="comment-image-input" />
      </label>
      {comment.image ? (
        <label className="form__check form__hint">
          <input type="checkbox" checked={removeImage} onChange={(e) => setRemoveImage(e.target.checked)} /> Remove the picture
        </label>
      ) : null}
      <div className="form__actions">
        <button type="submit" className="btn btn--primary" disabled={saving || !text.trim()} data-testid="comment-edit-save">
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="btn btn--link" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * Comments of one object: newest first, live (other users' comments appear without reload when the realtime
 * connection is up), a form for signed-in users and a login prompt for guests. Text is rendered as text.
 */
export default function Comments({ objectType, objectId, viewer, initial, locked, unlockHref }: CommentsProps) {
  const all = useStore(commentsStore);
  const state =
    all[objectId] ??
    (locked
      ? { ...emptyCommentState(), total: locked.commentCount, loaded: true, locked: locked.needs }
      : initial
        ? { ...emptyCommentState(), items: initial.items, total: initial.total, canModerate: initial.canModerate, loaded: true }
        : emptyCommentState());
  const [text, setText] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  /** The comment being reported (its dialog open). */
  const [reporting, setReporting] = useState<string | null>(null);
  const [next, setNext] = useState('/auth/login');
  const isLocked = Boolean(state.locked);

  useEffect(() => {
    setNext(`/auth/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }, []);

  useEffect(() => {
    // A locked discussion is neither loaded nor watched: the server would refuse both.
    if (locked) {
      lockComments(objectId, locked);
      return;
    }
    if (isLocked) return;
    if (initial) seedComments(objectId, initial);
    else void loadComments(objectType, objectId);
    return subscribeComments(objectType, objectId);
  }, [objectType, objectId, locked?.needs, isLocked]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!text.trim() || state.posting) return;
    const created = await createComment(objectType, objectId, text);
    if (created) setText('');
  };

  const onDelete = async (id: string) => {
    setDeleting(id);
    await deleteComment(objectId, id);
    setDeleting(null);
  };

  const canDelete = (c: CommentItem) => Boolean(viewer && (c.userId === viewer._id || viewer.role === 'admin' || state.canModerate));

  if (isLocked) {
    const action = state.locked === 'purchase' ? 'Buy' : 'Subscribe';
    return (
      <section className="comments" aria-labelledby={`comments-${objectId}`} data-testid="comments" data-locked={state.locked}>
        <h2 className="comments__head" id={`comments-${objectId}`}>
          <span className="comments__count" data-testid="comments-total">{formatCount(state.total)}</span> {nounFor(state.total, 'comment')}
        </h2>
        <p className="comments__prompt" data-testid="comments-locked">
          🔒 {unlockHref ? <a href={unlockHref}>{action}</a> : action} to read and join the conversation.
          {viewer ? null : (
            <>
              {' '}Already a member? <a href={next}>Log in</a>.
            </>
          )}
        </p>
      </section>
    );
  }

  return (
    <section className="comments" aria-labelledby={`comments-${objectId}`} data-testid="comments">
      <h2 className="comments__head" id={`comments-${objectId}`}>
        <span className="comments__count" data-testid="comments-total">{formatCount(state.total)}</span> {nounFor(state.total, 'comment')}
      </h2>

      {viewer ? (
        <form className="comments__form" onSubmit={onSubmit} data-testid="comment-form">
          <textarea
            aria-label="Write a comment"
            placeholder="Write a comment…"
            value={text}
            maxLength={COMMENT_MAX_LENGTH}
            onChange={(e) => setText(e.target.value)}
            data-testid="comment-input"
          />
          <div className="comments__meta">
            <span>
              {text.length}/{COMMENT_MAX_LENGTH}
            </span>
            <button type="submit" className="btn btn--primary" disabled={state.posting || !text.trim()} data-testid="comment-submit">
              {state.posting ? 'Posting…' : 'Post comment'}
            </button>
          </div>
        </form>
      ) : (
        <p className="comments__prompt" data-testid="comment-login-prompt">
          <a href={next}>Log in</a> to join the conversation.
        </p>
      )}

      {/* Rendered from the server on: the line is there before the request starts, so the page does not move when it does. */}
      {!state.loaded && !state.error ? <p className="empty">Loading comments…</p> : null}
      {state.loaded && state.items.length === 0 ? <p className="empty" data-testid="comments-empty">No comments yet.</p> : null}
      {state.error && !state.loaded ? <p className="form__error">Comments could not be loaded.</p> : null}

      <ul className="comments__list" data-testid="comments-list">
        {state.items.map((c) => (
          <li key={c._id} className="comment" data-testid="comment" data-comment-id={c._id}>
            <img className="comment__avatar" src={c.user.avatar || DEFAULT_AVATAR} alt="" width={40} height={40} loading="lazy" />
            <div>
              <div className="comment__head">
                <span className="comment__author" data-testid="comment-author">
                  {c.user.name}
                </span>
                <time className="comment__time" dateTime={c.createdAt}>
                  {when(c.createdAt)}
                </time>
                {viewer?._id === c.userId ? null : (
                  <details className="comment__menu" data-testid="comment-menu">
                    <summary aria-label={`More actions for ${c.user.name}'s comment`}>⋯</summary>
                    <div className="comment__menu-panel">
                      {viewer ? (
                        <ReportMenuItem onReport={() => setReporting(c._id)} testId="comment-report" />
                      ) : (
                        <a href={next} data-testid="comment-report-login">
                          Log in to report
                        </a>
                      )}
                    </div>
                  </details>
                )}
              </div>
              {editing === c._id ? (
                <CommentEditor comment={c} onDone={() => setEditing(null)} />
              ) : (
                <>
                  <p className="comment__text" data-testid="comment-text">
                    {c.content}
                  </p>
                  {c.image ? <img className="comment__image" src={c.image} alt="" loading="lazy" data-testid="comment-image" /> : null}
                </>
              )}
              {viewer && editing !== c._id ? (
                <div className="comment__actions">
                  {c.userId === viewer._id ? (
                    <button type="button" className="btn btn--link" onClick={() => setEditing(c._id)} data-testid="comment-edit">
                      Edit
                    </button>
                  ) : null}
                  {canDelete(c) ? (
                    <button type="button" className="btn btn--link" disabled={deleting === c._id} onClick={() => void onDelete(c._id)} data-testid="comment-delete">
                      {deleting === c._id ? 'Removing…' : 'Delete'}
                    </button>
                  ) : null}
                </div>
              ) : null}
            </div>
          </li>
        ))}
      </ul>

      {viewer && reporting ? (
        <Suspense fallback={null}>
          <ReportDialog key={reporting} open targetType="comment" targetId={reporting} what="this comment" onClose={() => setReporting(null)} />
        </Suspense>
      ) : null}

      {state.loaded && state.items.length < state.total ? (
        <button
          type="button"
          className="btn"
          disabled={state.requesting}
          onClick={() => void loadComments(objectType, objectId, { more: true })}
          data-testid="comments-more"
        >
          {state.requesting ? 'Loading…' : 'Load more comments'}
        </button>
      ) : null}
    </section>
  );
}
