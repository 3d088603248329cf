import { useEffect, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { POST_MAX_IMAGES } from '../../../common/limits.js';
import { formatMoney } from '../../../common/money.js';
import { countOf } from '../../../common/plural.js';
import type { StudioPost } from '../../../common/schemas/studio.js';
import { createPostStudio, type PostStudio } from '../../lib/stores/studio.js';
import { VISIBILITY_OPTIONS } from './ItemEditor.tsx';
import { ActionsCell, ItemTable, accessFields } from './StudioRow.tsx';
import { FieldError } from '../shared/Field.js';
import UploadProgress, { toMinor } from './UploadProgress.tsx';
import CoPerformers from './CoPerformers.tsx';

const ACCESS_LABEL: Record<string, string> = { free: 'Free', subscribers: 'Subscribers', sale: 'Sale' };

function mediaSummary(p: StudioPost): string {
  const media = p.media ?? [];
  if (!media.length) return p.imageUrl ? '1 picture' : '—';
  const what = media.some((m) => m.kind === 'video') ? 'Video' : countOf(media.length, 'photo');
  if (media.some((m) => m.processingStatus === 'failed')) return `${what} · failed`;
  return media.some((m) => m.processingStatus === 'processing') ? `${what} · processing` : what;
}

/** A post's pictures or video in the editor: each can be removed; pictures (or a video) can be added. */
function PostMediaEditor({ post, studio }: { post: StudioPost; studio: PostStudio }) {
  const media = post.media ?? [];
  const [busy, setBusy] = useState(false);
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('media') as HTMLInputElement;
    const files = [...(input.files ?? [])];
    if (!files.length) return;
    setBusy(true);
    const video = files.some((f) => f.type.startsWith('video/'));
    if (await studio.addMedia(post._id, video ? files.slice(0, 1) : files, video ? 'video' : 'file')) input.value = '';
    setBusy(false);
  };
  return (
    <div className="studio-panel" data-testid="post-media-editor">
      <h3>Pictures and video</h3>
      {media.length ? (
        <ul className="post-media-list">
          {media.map((m, i) => (
            <li key={m._id} data-testid="post-media-item">
              {m.previewUrl ? <img src={m.previewUrl} alt={`${m.kind === 'video' ? 'Video' : 'Picture'} ${i + 1}`} width={96} height={96} /> : <span className="status status--processing">{m.processingStatus}</span>}
              {m.processingError ? <span className="form__error">{m.processingError}</span> : null}
              <button type="button" className="btn btn--link" disabled={busy} onClick={async () => {
                setBusy(true);
                await studio.removeMedia(post._id, m._id);
                setBusy(false);
              }}>Remove {m.kind === 'video' ? 'video' : `picture ${i + 1}`}</button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="form__hint">No pictures or video yet.</p>
      )}
      <form className="form" onSubmit={add}>
        <div className="form__field">
          <label htmlFor={`pm-${post._id}`}>Add pictures, or one video</label>
          <input id={`pm-${post._id}`} name="media" type="file" accept="image/*,video/*" multiple />
        </div>
        <div className="form__actions"><button type="submit" className="btn" disabled={busy}>Add</button></div>
      </form>
    </div>
  );
}

/**
 * Performer studio: posts with text and up to ten pictures or one video, free, for subscribers or pay-per-view.
 * Media are uploaded with the post (a progress bar), processed in the background (the list follows), and can be
 * removed or added later. Calls go through its store.
 */
export default function StudioPosts({ initial, currencySymbol = '$' }: { initial: { items: StudioPost[]; total: number }; currencySymbol?: string }) {
  const [studio] = useState(() => createPostStudio(initial));
  const { items: posts, creating, upload: { progress, error, fieldErrors } } = useStore(studio.store);
  const [visibility, setVisibility] = useState('subscribers');
  const processing = posts.filter((p) => (p.media ?? []).some((m) => m.processingStatus === 'processing')).map((p) => p._id);
  const processingKey = processing.join(',');
  useEffect(() => studio.followProcessing(processing), [processingKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const sending = creating || (progress !== null && progress < 1);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const el = event.currentTarget;
    const data = new FormData(el);
    const pictures = (data.getAll('file') as File[]).filter((f) => f.size > 0);
    const video = (data.get('video') as File | null)?.size ? (data.get('video') as File) : null;
    if (pictures.length > POST_MAX_IMAGES) return studio.invalid({ file: `At most ${POST_MAX_IMAGES} pictures` });
    if (pictures.length && video) return studio.invalid({ video: 'Choose pictures or one video, not both' });
    const form = new FormData();
    for (const name of ['title', 'excerpt', 'content', 'status']) form.append(name, String(data.get(name) ?? ''));
    form.append('visibility', visibility);
    if (visibility === 'sale') {
      const price = toMinor(String(data.get('price') ?? ''));
      if (!price || Number.isNaN(price)) return studio.invalid({ price: 'Enter a price, e.g. 4.99' });
      form.append('price', String(price));
    }
    // Fields first, then the files (the server reads the form in order).
    for (const f of pictures) form.append('file', f);
    if (video) form.append('video', video);
    const post = await studio.create(form);
    if (post) {
      el.reset();
      setVisibility('subscribers');
    }
  };

  const fieldError = (name: string) => (fieldErrors[name] ? <p className="form__error">{fieldErrors[name]}</p> : null);
  return (
    <div>
      <form className="form studio-panel" onSubmit={onSubmit} data-testid="post-form" noValidate>
        <h2>New post</h2>
        <div className="form__field"><label htmlFor="po-title">Title</label><input id="po-title" name="title" required maxLength={200} />{fieldError('title')}</div>
        <div className="form__field"><label htmlFor="po-content">Text</label><textarea id="po-content" name="content" rows={6} required />{fieldError('content')}</div>
        <div className="form__field">
          <label htmlFor="po-excerpt">Teaser</label>
          <input id="po-excerpt" name="excerpt" maxLength={500} aria-describedby="po-excerpt-hint" />
          <p className="form__hint" id="po-excerpt-hint">Everyone sees it, also while the post is locked. Empty: the start of the text.</p>
          {fieldError('excerpt')}
        </div>
        <div className="form__field">
          <label htmlFor="po-vis">Who can see it</label>
          <select id="po-vis" name="visibility-choice" value={visibility} onChange={(e) => setVisibility(e.target.value)} data-testid="post-visibility">
            {VISIBILITY_OPTIONS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </div>
        {visibility === 'sale' ? (
          <div className="form__field"><label htmlFor="po-price">Price ({currencySymbol})</label><input id="po-price" name="price" inputMode="decimal" data-testid="post-price" />{fieldError('price')}</div>
        ) : null}
        <div className="form__field">
          <label htmlFor="po-files">Pictures (up to {POST_MAX_IMAGES})</label>
          <input id="po-files" name="file" type="file" accept="image/*" multiple data-testid="post-files" />
          {fieldError('file')}
        </div>
        <div className="form__field">
          <label htmlFor="po-video">Or one video</label>
          <input id="po-video" name="video" type="file" accept="video/*" data-testid="post-video" />
          {fieldError('video')}
        </div>
        <div className="form__field">
          <label htmlFor="po-status">Status</label>
          <select id="po-status" name="status" defaultValue="published"><option value="published">Published</option><option value="draft">Draft</option><option value="hidden">Hidden</option></select>
        </div>
        <UploadProgress fraction={progress} />
        <FieldError message={error} />
        <div className="form__actions"><button className="btn btn--primary" type="submit" disabled={sending} data-testid="post-save">Save post</button></div>
      </form>
      <div className="table-box">
      <ItemTable
        testId="studio-posts"
        head={['Title', 'Access', 'Media', 'Status', 'Date', '']}
        items={posts}
        row={(p, edit) => (
          <tr data-testid="studio-post" data-id={p._id}>
            <td><a href={`/posts/${p._id}`}>{p.title}</a></td>
            <td>{ACCESS_LABEL[p.visibility ?? 'free']}{p.visibility === 'sale' && p.price ? ` · ${formatMoney(p.price, currencySymbol)}` : ''}</td>
            <td data-testid="studio-post-media">{mediaSummary(p)}</td>
            <td>{p.status}</td>
            <td>{(p.publishedAt ?? p.createdAt).slice(0, 10)}</td>
            <ActionsCell confirm="Delete this post?" onDelete={() => studio.remove(p._id)} onEdit={edit} editTestId="post-edit" />
          </tr>
        )}
        editor={(p) => ({
          id: `pe-${p._id}`,
          fields: [
            { name: 'title', label: 'Title', kind: 'text', value: p.title },
            { name: 'excerpt', label: 'Teaser', kind: 'textarea', value: p.excerpt },
            { name: 'content', label: 'New text (leave empty to keep the current text)', kind: 'textarea', value: '', hint: 'Plain text; a blank line starts a paragraph.' },
            ...accessFields('Who can see it', p.visibility ?? 'free', p.price ?? 0, currencySymbol),
            { name: 'status', label: 'Status', kind: 'select', value: p.status, options: [['draft', 'Draft'], ['published', 'Published'], ['hidden', 'Hidden']] },
            { name: 'publishedAt', label: 'Publish date', kind: 'datetime', value: p.publishedAt },
          ],
          save: (changes) => studio.update(p._id, changes),
          children: (
            <>
              <PostMediaEditor post={p} studio={studio} />
              <CoPerformers objectType="post" objectId={p._id} />
            </>
          ),
        })}
      />
      </div>
    </div>
  );
}
