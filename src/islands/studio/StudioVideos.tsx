import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { Access } from '../../../common/enums.js';
import type { StudioVideo } from '../../../common/schemas/studio.js';
import { createVideoStudio } from '../../lib/stores/studio.js';
import UploadProgress, { StatusBadge, toMajor, toMinor } from './UploadProgress.tsx';
import { STATUS_OPTIONS } from './ItemEditor.tsx';
import { DeleteButton, EditButton, ItemTable, accessFields } from './StudioRow.tsx';
import { FieldError } from '../shared/Field.js';
import CoPerformers from './CoPerformers.tsx';

export interface StudioVideosProps {
  initial: { items: StudioVideo[]; total: number };
  currencySymbol: string;
}

/**
 * Performer studio: upload a video (file, teaser, thumbnail, visibility, sale price, schedule, tags) with a
 * progress bar, then follow its processing (polling `GET /performer/assets/videos/{id}/processing`) until it is
 * ready or failed; a failed one can be retried. Server state and calls live in its store (`createVideoStudio`).
 */
export default function StudioVideos({ initial, currencySymbol }: StudioVideosProps) {
  const [studio] = useState(() => createVideoStudio(initial));
  const { items: videos, total, upload: { progress, error, fieldErrors } } = useStore(studio.store);
  const [visibility, setVisibility] = useState<Access>('subscribers');
  const formRef = useRef<HTMLFormElement>(null);

  // Poll the videos that are still processing.
  const processingIds = videos.filter((v) => v.processingStatus === 'processing').map((v) => v._id).join(',');
  useEffect(() => studio.followProcessing(processingIds ? processingIds.split(',') : []), [studio, processingIds]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    studio.invalid({});
    const data = new FormData(event.currentTarget);
    const form = new FormData();
    const file = data.get('file');
    if (!(file instanceof File) || file.size === 0) {
      studio.invalid({ file: 'Choose a video file' });
      return;
    }
    for (const name of ['title', 'description', 'visibility', 'tags', 'status']) {
      const v = data.get(name);
      if (typeof v === 'string' && v.trim()) form.append(name, v.trim());
    }
    if (visibility === 'sale') {
      const price = toMinor(String(data.get('price') ?? ''));
      if (!price || Number.isNaN(price)) {
        studio.invalid({ price: 'Enter a sale price' });
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
    if (await studio.uploadVideo(form)) {
      formRef.current?.reset();
      setVisibility('subscribers');
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
        <FieldError message={error} />
        <div className="form__actions">
          <button type="submit" className="btn btn--primary" disabled={progress !== null && progress < 1} data-testid="video-upload-submit">Upload</button>
        </div>
      </form>

      <h2>Your videos ({total})</h2>
      <ItemTable
        testId="studio-videos"
        head={['', 'Title', 'Access', 'Status', '']}
        items={videos}
        row={(v, edit) => (
          <tr data-testid="studio-video" data-id={v._id}>
            <td>{v.thumbnailUrl ? <img src={v.thumbnailUrl} alt="" /> : null}</td>
            <td><a href={`/videos/${v._id}`}>{v.title}</a>{v.scheduledAt ? <div className="form__hint">Publishes {v.scheduledAt.slice(0, 16).replace('T', ' ')} UTC</div> : null}</td>
            <td>{v.visibility === 'sale' ? `${currencySymbol}${toMajor(v.price)}` : v.visibility}</td>
            <td>
              <StatusBadge status={v.processingStatus} /> <span className="form__hint">{v.status}</span>
              {v.processingStatus === 'failed' ? (
                <div>
                  <span className="form__error">{v.processingError}</span>{' '}
                  <button type="button" className="btn btn--link" onClick={() => void studio.retry(v._id)} data-testid="video-retry">Retry</button>
                </div>
              ) : null}
            </td>
            <td>
              <EditButton onClick={edit} testId="video-edit" />{' '}
              <DeleteButton confirm="Delete this video?" onDelete={() => studio.remove(v._id)} />
            </td>
          </tr>
        )}
        editor={(v) => ({
          testId: 'studio-video-editor',
          id: `ve-${v._id}`,
          fields: [
            { name: 'title', label: 'Title', kind: 'text', value: v.title },
            { name: 'description', label: 'Description', kind: 'textarea', value: v.description },
            ...accessFields('Who can watch', v.visibility, v.price, currencySymbol),
            { name: 'tags', label: 'Tags', kind: 'tags', value: v.tags, hint: 'Comma-separated.' },
            { name: 'scheduledAt', label: 'Publish at (empty: now)', kind: 'datetime', value: v.scheduledAt },
            { name: 'status', label: 'Status', kind: 'select', value: v.status, options: STATUS_OPTIONS },
          ],
          save: (changes) => studio.update(v._id, changes),
          children: <CoPerformers objectType="video" objectId={v._id} />,
        })}
      />
    </div>
  );
}
