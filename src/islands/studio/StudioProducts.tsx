import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { ProductItem } from '../../../common/schemas/catalogue.js';
import { createProductStudio } from '../../lib/stores/studio.js';
import UploadProgress, { toMajor, toMinor } from './UploadProgress.tsx';
import { STATUS_OPTIONS } from './ItemEditor.tsx';
import { ActionsCell, ItemTable } from './StudioRow.tsx';
import { FieldError } from '../shared/Field.js';

/** Performer studio: products, physical (with stock) or digital (with the file buyers download); calls go through its store. */
export default function StudioProducts({ initial, currencySymbol }: { initial: { items: ProductItem[]; total: number }; currencySymbol: string }) {
  const [studio] = useState(() => createProductStudio(initial));
  const { items: products, upload: { progress, error } } = useStore(studio.store);
  const [type, setType] = useState<'physical' | 'digital'>('physical');

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    studio.invalid({});
    const el = event.currentTarget;
    const data = new FormData(el);
    const price = toMinor(String(data.get('price') ?? ''));
    if (!price || Number.isNaN(price)) return studio.invalid({}, 'Enter a price, e.g. 19.99');
    const form = new FormData();
    form.append('name', String(data.get('name') ?? ''));
    form.append('description', String(data.get('description') ?? ''));
    form.append('type', type);
    form.append('price', String(price));
    form.append('status', 'active');
    if (type === 'physical') form.append('stock', String(data.get('stock') ?? '0') || '0');
    const image = data.get('image');
    if (image instanceof File && image.size > 0) form.append('image', image);
    const file = data.get('file');
    if (type === 'digital') {
      if (!(file instanceof File) || file.size === 0) return studio.invalid({}, 'Choose the file buyers will download');
      form.append('file', file);
    }
    if (await studio.create(form)) el.reset();
  };

  return (
    <div>
      <form className="form studio-panel" onSubmit={onSubmit} data-testid="product-form">
        <h2>New product</h2>
        <div className="form__field"><label htmlFor="pr-name">Name</label><input id="pr-name" name="name" required maxLength={200} /></div>
        <div className="form__field"><label htmlFor="pr-desc">Description</label><textarea id="pr-desc" name="description" rows={2} /></div>
        <div className="form__field">
          <label htmlFor="pr-type">Type</label>
          <select id="pr-type" value={type} onChange={(e) => setType(e.target.value as typeof type)}><option value="physical">Physical (shipped)</option><option value="digital">Digital (download)</option></select>
        </div>
        <div className="form__field"><label htmlFor="pr-price">Price ({currencySymbol})</label><input id="pr-price" name="price" inputMode="decimal" required /></div>
        {type === 'physical'
          ? <div className="form__field"><label htmlFor="pr-stock">Stock</label><input id="pr-stock" name="stock" type="number" min={0} defaultValue={1} /></div>
          : <div className="form__field"><label htmlFor="pr-file">File</label><input id="pr-file" name="file" type="file" /></div>}
        <div className="form__field"><label htmlFor="pr-image">Picture</label><input id="pr-image" name="image" type="file" accept="image/*" /></div>
        <UploadProgress fraction={progress} />
        <FieldError message={error} />
        <div className="form__actions"><button className="btn btn--primary" type="submit" disabled={progress !== null && progress < 1}>Create product</button></div>
      </form>
      <ItemTable
        testId="studio-products"
        head={['Name', 'Type', 'Price', 'Stock', 'Status', '']}
        items={products}
        row={(p, edit) => (
          <tr data-testid="studio-product" data-id={p._id}>
            <td><a href={`/products/${p._id}`}>{p.name}</a></td><td>{p.type}</td><td>{currencySymbol}{toMajor(p.price)}</td><td>{p.stock ?? '—'}</td><td>{p.status}</td>
            <ActionsCell confirm="Delete this product?" onDelete={() => studio.remove(p._id)} onEdit={edit} editTestId="product-edit" />
          </tr>
        )}
        editor={(p) => ({
          id: `pe-${p._id}`,
          fields: [
            { name: 'name', label: 'Name', kind: 'text', value: p.name },
            { name: 'description', label: 'Description', kind: 'textarea', value: p.description },
            { name: 'price', label: `Price (${currencySymbol})`, kind: 'money', value: p.price },
            ...(p.type === 'physical' ? [{ name: 'stock', label: 'Stock', kind: 'int' as const, value: p.stock }] : []),
            { name: 'status', label: 'Status', kind: 'select', value: p.status, options: STATUS_OPTIONS },
          ],
          save: (changes) => studio.update(p._id, changes),
        })}
      />
    </div>
  );
}
