import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, errorMessage, studioApi, upload, type StudioVideo } from '../../lib/api.js';
import { toast } from '../../lib/stores/toast.js';
import UploadProgress, { StatusBadge, toMajor, toMinor } from './UploadProgress.tsx';
import ItemEditor, { STATUS_OPTIONS, VISIBILITY_OPTIONS } from './ItemEditor.tsx';

const POLL_MS = 1500;

export interface StudioVideosProps {
  initial: { items: StudioVideo[]; total: number };
  currencySymbol: string;
}

/**
 * Performer studio: upload a video (file, teaser, thumbnail, visibility, sale price, schedule, tags) with a
 * progress bar, then follow its processing (polling `GET /performer/assets/videos/{id}/processing`) until it is
 * ready or failed; a failed one can be retried.
 */
export default function StudioVideos({ initial, currencySymbol }: StudioVideosProps) {
  const [videos, setVideos] = useState<StudioVideo[]>(initial.items);
  const [total, setTotal] = useState(initial.total);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [visibility, setVisibility] = useState<'free' | 'subscribers' | 'sale'>('subscribers');
  const [editing, setEditing] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  // Poll the videos that are still processing.
  const processingIds = videos.filter((v) => v.processingStatus === 'processing').map((v) => v._id).join(',');
  useEffect(() => {
    if (!processingIds) return;
    let stopped = false;
    const timer = setInterval(async () => {
      for (const id of processingIds.split(',')) {
        try {
          const state = await studioApi.videoProcessing(id);
          if (stopped) return;
          setVideos((list) =>
            list.map((v) =>
              v._id === id
                ? { ...v, processingStatus: state.processingStatus, processingError: state.processingError, duration: state.duration, thumbnailUrl: state.thumbnailUrl, teaserUrl: state.teaserUrl }
                : v,
            ),
          );
        } catch {
          // try again at the next tick
        }
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [processingIds]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    setFieldErrors({});
    const data = new FormData(event.currentTarget);
    const form = new FormData();
    const file = data.get('file');
    if (!(file instanceof File) || file.size === 0) {
      setFieldErrors({ file: 'Choose a video file' });
      return;
    }
    for (const name of ['title', 'description', 'visibility', 'tags', 'status']) {
      const v = data.get(name);
      if (typeof v === 'string' && v.trim()) form.append(name, v.trim());
    }
    if (visibility === 'sale') {
      const price = toMinor(String(data.get('price') ?? ''));
      if (!price || Number.isNaN(price)) {
        setFieldErrors({ price: 'Enter a sale price' });
        return;
      }
      form.append('price', String(price));
    }
    const when = String(data.get('scheduledAt') ?? '');
    if (when) form.append('scheduledAt', new Date(when).toISOString());
    form.append('file', file);
    for (const name of ['teaser', 'thumbnail']) {
      const f = data.get(name);
      if (f instanceof File && f.size > 0) form.append(name, f);
    }
    setProgress(0);
    try {
      const created = await upload<StudioVideo>('/performer/assets/videos/upload', form, { onProgress: (f) => setProgress(f) });
      setVideos((list) => [created, ...list]);
      setTotal((n) => n + 1);
      toast.success('Video uploaded, processing has started');
      formRef.current?.reset();
      setVisibility('subscribers');
    } catch (err) {
      setProgress(null);
      if (err instanceof ApiError) setFieldErrors(err.fieldErrors());
      setError(errorMessage(err, 'Upload failed, please try again'));
    }
  };

  const retry = async (id: string) => {
    try {
      const video = await studioApi.retryVideo(id);
      setVideos((list) => list.map((v) => (v._id === id ? video : v)));
    } catch (err) {
      toast.error(errorMessage(err, 'Could not retry'));
    }
  };

  const remove = async (id: string) => {
    if (!window.confirm('Delete this video?')) return;
    try {
      await studioApi.deleteVideo(id);
      setVideos((list) => list.filter((v) => v._id !== id));
      setTotal((n) => n - 1);
    } catch (err) {
      toast.error(errorMessage(err, 'Could not delete the video'));
    }
  };

  return (
    <div>
      <form ref={formRef} className="form studio-panel" onSubmit={onSubmit} data-testid="video-upload-form" noValidate>
        <h2>Upload a video</h2>
        <div className="form__field">
          <label htmlFor="v-file">Video file</label>
          <input id="v-file" name="file" type="file" accept="video/*" required data-testid="video-file" />
          {fieldErrors.file ? <p className="form__error">{fieldErrors.file}</p> : null}
        </div>
        <div className="form__field">
          <label htmlFor="v-title">Title</label>
          <input id="v-title" name="title" required maxLength={200} data-testid="video-title-input" />
          {fieldErrors.title ? <p className="form__error">{fieldErrors.title}</p> : null}
        </div>
        <div className="form__field">
          <label htmlFor="v-desc">Description</label>
          <textarea id="v-desc" name="description" maxLength={5000} rows={3} />
        </div>
        <div className="form__field">
          <label htmlFor="v-vis">Who can watch</label>
          <select id="v-vis" name="visibility" value={visibility} onChange={(e) => setVisibility(e.target.value as typeof visibility)}>
            <option value="free">Everyone (free)</option>
            <option value="subscribers">Subscribers</option>
            <option value="sale">Buyers (sale)</option>
          </select>
        </div>
        {visibility === 'sale' ? (
          <div className="form__field">
            <label htmlFor="v-price">Sale price ({currencySymbol})</label>
            <input id="v-price" name="price" inputMode="decimal" placeholder="9.99" />
            {fieldErrors.price ? <p className="form__error">{fieldErrors.price}</p> : null}
          </div>
        ) : null}
        <div className="form__field">
          <label htmlFor="v-tags">Tags</label>
          <input id="v-tags" name="tags" placeholder="yoga, morning" />
          <p className="form__hint">Comma-separated.</p>
        </div>
        <div className="form__field">
          <label htmlFor="v-when">Publish at (optional)</label>
          <input id="v-when" name="scheduledAt" type="datetime-local" />
        </div>
        <div className="form__field">
          <label htmlFor="v-teaser">Teaser clip (optional)</label>
          <input id="v-teaser" name="teaser" type="file" accept="video/*" />
        </div>
        <div className="form__field">
          <label htmlFor="v-thumb">Thumbnail (optional)</label>
          <input id="v-thumb" name="thumbnail" type="file" accept="image/*" />
        </div>
        <UploadProgress fraction={progress} />
        {error ? <p className="form__error" role="alert">{error}</p> : null}
        <div className="form__actions">
          <button type="submit" className="btn btn--primary" disabled={progress !== null && progress < 1} data-testid="video-upload-submit">Upload</button>
        </div>
      </form>

      <h2>Your videos ({total})</h2>
      <table className="studio-table" data-testid="studio-videos">
        <thead><tr><th></th><th>Title</th><th>Access</th><th>Status</th><th></th></tr></thead>
        <tbody>
          {videos.map((v) => [
            <tr key={v._id} data-testid="studio-video" data-id={v._id}>
              <td>{v.thumbnailUrl ? <img src={v.thumbnailUrl} alt="" /> : null}</td>
              <td><a href={`/videos/${v._id}`}>{v.title}</a>{v.scheduledAt ? <div className="form__hint">Publishes {v.scheduledAt.slice(0, 16).replace('T', ' ')} UTC</div> : null}</td>
              <td>{v.visibility === 'sale' ? `${currencySymbol}${toMajor(v.price)}` : v.visibility}</td>
              <td>
                <StatusBadge status={v.processingStatus} /> <span className="form__hint">{v.status}</span>
                {v.processingStatus === 'failed' ? (
                  <div>
                    <span className="form__error">{v.processingError}</span>{' '}
                    <button type="button" className="btn btn--link" onClick={() => void retry(v._id)} data-testid="video-retry">Retry</button>
                  </div>
                ) : null}
              </td>
              <td>
                <button type="button" className="btn btn--link" onClick={() => setEditing(editing === v._id ? null : v._id)} data-testid="video-edit">Edit</button>{' '}
                <button type="button" className="btn btn--link" onClick={() => void remove(v._id)}>Delete</button>
              </td>
            </tr>,
            editing === v._id ? (
              <tr key={`${v._id}-edit`} data-testid="studio-video-editor">
                <td colSpan={5}>
                  <ItemEditor
                    id={`ve-${v._id}`}
                    fields={[
                      { name: 'title', label: 'Title', kind: 'text', value: v.title },
                      { name: 'description', label: 'Description', kind: 'textarea', value: v.description },
                      { name: 'visibility', label: 'Who can watch', kind: 'select', value: v.visibility, options: VISIBILITY_OPTIONS },
                      { name: 'price', label: `Sale price (${currencySymbol})`, kind: 'money', value: v.price, showIf: (f) => f.visibility === 'sale' },
                      { name: 'tags', label: 'Tags', kind: 'tags', value: v.tags, hint: 'Comma-separated.' },
                      { name: 'scheduledAt', label: 'Publish at (empty: now)', kind: 'datetime', value: v.scheduledAt },
                      { name: 'status', label: 'Status', kind: 'select', value: v.status, options: STATUS_OPTIONS },
                    ]}
                    save={(changes) => studioApi.updateVideo(v._id, changes)}
                    onSaved={(updated) => setVideos((list) => list.map((x) => (x._id === v._id ? updated : x)))}
                    onClose={() => setEditing(null)}
                  />
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </div>
  );
}
