import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { StudioGallery } from '../../../common/schemas/studio.js';
import { createGalleryStudio } from '../../lib/stores/studio.js';
import UploadProgress, { toMinor } from './UploadProgress.tsx';
import { STATUS_OPTIONS } from './ItemEditor.tsx';
import { ActionsCell, ItemTable, accessFields } from './StudioRow.tsx';
import { FieldError } from '../shared/Field.js';
import CoPerformers from './CoPerformers.tsx';

/** Performer studio: create galleries and upload photos to them (with a progress bar); calls go through its store. */
export default function StudioGalleries({ initial, currencySymbol }: { initial: { items: StudioGallery[]; total: number }; currencySymbol: string }) {
  const [studio] = useState(() => createGalleryStudio(initial));
  const { items: galleries, upload: { progress, error } } = useStore(studio.store);
  const [visibility, setVisibility] = useState('subscribers');
  const [target, setTarget] = useState<string>(initial.items[0]?._id ?? '');

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const el = event.currentTarget;
    const data = new FormData(el);
    const body: Record<string, unknown> = { title: String(data.get('title') ?? ''), description: String(data.get('description') ?? ''), visibility, status: 'active' };
    if (visibility === 'sale') body.price = toMinor(String(data.get('price') ?? '')) ?? 0;
    const gallery = await studio.create(body);
    if (gallery) {
      setTarget(gallery._id);
      el.reset();
    }
  };

  const uploadPhotos = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    studio.invalid({});
    const input = event.currentTarget.elements.namedItem('file') as HTMLInputElement;
    const files = [...(input.files ?? [])];
    if (!target || files.length === 0) {
      studio.invalid({}, 'Choose a gallery and at least one picture');
      return;
    }
    if (await studio.uploadPhotos(target, files)) input.value = '';
  };

  return (
    <div>
      <form className="form studio-panel" onSubmit={create} data-testid="gallery-create-form">
        <h2>New gallery</h2>
        <div className="form__field"><label htmlFor="g-title">Title</label><input id="g-title" name="title" required maxLength={200} /></div>
        <div className="form__field"><label htmlFor="g-desc">Description</label><textarea id="g-desc" name="description" rows={2} /></div>
        <div className="form__field">
          <label htmlFor="g-vis">Who can see it</label>
          <select id="g-vis" value={visibility} onChange={(e) => setVisibility(e.target.value)}>
            <option value="free">Everyone (free)</option><option value="subscribers">Subscribers</option><option value="sale">Buyers (sale)</option>
          </select>
        </div>
        {visibility === 'sale' ? <div className="form__field"><label htmlFor="g-price">Price ({currencySymbol})</label><input id="g-price" name="price" inputMode="decimal" /></div> : null}
        <div className="form__actions"><button className="btn btn--primary" type="submit">Create gallery</button></div>
      </form>
      <form className="form studio-panel" onSubmit={uploadPhotos} data-testid="photo-upload-form">
        <h2>Upload photos</h2>
        <div className="form__field">
          <label htmlFor="ph-gallery">Gallery</label>
          <select id="ph-gallery" value={target} onChange={(e) => setTarget(e.target.value)}>
            {galleries.map((g) => <option key={g._id} value={g._id}>{g.title}</option>)}
          </select>
        </div>
        <div className="form__field"><label htmlFor="ph-files">Pictures</label><input id="ph-files" name="file" type="file" accept="image/*" multiple /></div>
        <UploadProgress fraction={progress} />
        <FieldError message={error} />
        <div className="form__actions"><button className="btn btn--primary" type="submit" disabled={progress !== null && progress < 1}>Upload</button></div>
      </form>
      <ItemTable
        testId="studio-galleries"
        head={['Title', 'Access', 'Photos', 'Status', '']}
        items={galleries}
        row={(g, edit) => (
          <tr data-testid="studio-gallery" data-id={g._id}>
            <td><a href={`/galleries/${g._id}`}>{g.title}</a></td><td>{g.visibility}</td><td>{g.photoCount}</td><td>{g.status}</td>
            <ActionsCell confirm="Delete this gallery and its photos?" onDelete={() => studio.remove(g._id)} onEdit={edit} editTestId="gallery-edit" />
          </tr>
        )}
        editor={(g) => ({
          id: `ge-${g._id}`,
          fields: [
            { name: 'title', label: 'Title', kind: 'text', value: g.title },
            { name: 'description', label: 'Description', kind: 'textarea', value: g.description },
            ...accessFields('Who can see', g.visibility, g.price, currencySymbol),
            { name: 'tags', label: 'Tags', kind: 'tags', value: g.tags, hint: 'Comma-separated.' },
            { name: 'status', label: 'Status', kind: 'select', value: g.status, options: STATUS_OPTIONS },
          ],
          save: (changes) => studio.update(g._id, changes),
          children: <CoPerformers objectType="gallery" objectId={g._id} />,
        })}
      />
    </div>
  );
}
