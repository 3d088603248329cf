import { useId, useRef, useState, type FormEvent } from 'react';
import type { MenuItem } from '../../../common/schemas/site.js';
import { isSiteLink, LINK_MESSAGE } from '../../../common/links.js';
import { ApiError, errorMessage } from '../../lib/api/error.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';
import { FormAlert } from '../shared/Field.js';
import { GENERIC_ERROR } from '../shared/useFormErrors.js';

type Section = 'header' | 'footer';
interface Row {
  /** Stable key for React while rows move. */
  key: number;
  title: string;
  path: string;
  isNewTab: boolean;
}
type RowErrors = Partial<Record<'title' | 'path', string>>;

export interface MenuEditorProps {
  initial: MenuItem[];
  testId?: string;
}

const SECTIONS: Array<{ id: Section; label: string }> = [
  { id: 'header', label: 'Header links' },
  { id: 'footer', label: 'Footer links' },
];
/** The API's limits (common/schemas/admin.ts menuItemSchema / settingsBody). */
const MAX_ITEMS = 50;
const MAX_TITLE = 60;

/** What a row lacks, in words; the same link rule as the API (common/links.ts). */
export function rowErrors(row: Pick<Row, 'title' | 'path'>): RowErrors {
  const e: RowErrors = {};
  if (!row.title.trim()) e.title = 'Enter the text of the link';
  else if (row.title.trim().length > MAX_TITLE) e.title = `At most ${MAX_TITLE} characters`;
  if (!row.path.trim()) e.path = 'Enter where the link goes, like /videos';
  else if (!isSiteLink(row.path)) e.path = LINK_MESSAGE;
  return e;
}

/** The rows → the `menus` setting: header links then footer links, each list's order as its `ordering`. */
export function toMenus(rows: Record<Section, Row[]>): MenuItem[] {
  return SECTIONS.flatMap(({ id }) =>
    rows[id].map((r, i) => ({ title: r.title.trim(), path: r.path.trim(), section: id, ordering: i, ...(r.isNewTab ? { isNewTab: true } : {}) })),
  );
}

/**
 * The site's menus as two lists (header, footer) of label + address rows: add, remove, move up and down, open in a
 * new tab. Saved as the `menus` setting (PUT /admin/settings); a bad address is refused next to its row, here and by
 * the API.
 */
export default function MenuEditor({ initial, testId = 'menu-editor' }: MenuEditorProps) {
  const nextKey = useRef(0);
  const make = (m: Partial<MenuItem> = {}): Row => ({ key: nextKey.current++, title: m.title ?? '', path: m.path ?? '', isNewTab: Boolean(m.isNewTab) });
  const [rows, setRows] = useState<Record<Section, Row[]>>(() => {
    const of = (s: Section) => initial.filter((m) => (m.section === 'footer' ? 'footer' : 'header') === s).sort((a, b) => (a.ordering ?? 0) - (b.ordering ?? 0)).map((m) => make(m));
    return { header: of('header'), footer: of('footer') };
  });
  const [errors, setErrors] = useState<Record<number, RowErrors>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const change = (section: Section, fn: (list: Row[]) => Row[]) => setRows((all) => ({ ...all, [section]: fn(all[section]) }));
  const update = (section: Section, key: number, patch: Partial<Row>) => change(section, (list) => list.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const move = (section: Section, index: number, by: -1 | 1) =>
    change(section, (list) => {
      const to = index + by;
      if (to < 0 || to >= list.length) return list;
      const copy = [...list];
      [copy[index], copy[to]] = [copy[to]!, copy[index]!];
      return copy;
    });
  const total = rows.header.length + rows.footer.length;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    const found: Record<number, RowErrors> = {};
    for (const r of [...rows.header, ...rows.footer]) {
      const e = rowErrors(r);
      if (Object.keys(e).length) found[r.key] = e;
    }
    setErrors(found);
    if (Object.keys(found).length) return setFormError('Some links need fixing: see the messages next to them.');
    setBusy(true);
    try {
      await admin.send('PUT', '/admin/settings', { menus: toMenus(rows) });
      toast.success('Menus saved');
      window.location.reload();
    } catch (err) {
      // The API names a row by its place in the list it got (menus.3.path): header rows come first.
      const ordered = [...rows.header, ...rows.footer];
      const fromApi: Record<number, RowErrors> = {};
      const details = err instanceof ApiError && Array.isArray(err.body.details) ? (err.body.details as Array<{ path?: unknown; message?: unknown }>) : [];
      for (const d of details) {
        const m = typeof d.path === 'string' ? /menus\.(\d+)\.(title|path)/.exec(d.path) : null;
        const row = m ? ordered[Number(m[1])] : undefined;
        if (row && typeof d.message === 'string') fromApi[row.key] = { ...fromApi[row.key], [m![2] as 'title' | 'path']: d.message };
      }
      setErrors(fromApi);
      setFormError(Object.keys(fromApi).length ? 'Some links need fixing: see the messages next to them.' : errorMessage(err, GENERIC_ERROR));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form menu-editor" onSubmit={onSubmit} data-testid={testId} aria-busy={busy} noValidate>
      {SECTIONS.map(({ id: section, label }) => (
        <fieldset key={section} className="menu-editor__section" data-testid={`${testId}-${section}`}>
          <legend>{label}</legend>
          {rows[section].length === 0 && <p className="form__hint">No links yet.</p>}
          <ol className="menu-editor__rows">
            {rows[section].map((r, i) => {
              const e = errors[r.key] ?? {};
              const base = `${id}-${r.key}`;
              const place = `${section} link ${i + 1}`;
              return (
                <li key={r.key} className="menu-editor__row" data-testid={`${testId}-${section}-row`}>
                  <div className="form__field">
                    <label htmlFor={`${base}-title`}>Label</label>
                    <input id={`${base}-title`} name="title" value={r.title} maxLength={MAX_TITLE + 20} aria-invalid={e.title ? true : undefined}
                      aria-describedby={e.title ? `${base}-title-error` : undefined} onChange={(ev) => update(section, r.key, { title: ev.target.value })} />
                    {e.title && <p id={`${base}-title-error`} className="form__error" role="alert">{e.title}</p>}
                  </div>
                  <div className="form__field">
                    <label htmlFor={`${base}-path`}>Address (URL)</label>
                    <input id={`${base}-path`} name="path" value={r.path} inputMode="url" placeholder="/videos" aria-invalid={e.path ? true : undefined}
                      aria-describedby={e.path ? `${base}-path-error` : undefined} onChange={(ev) => update(section, r.key, { path: ev.target.value })} />
                    {e.path && <p id={`${base}-path-error`} className="form__error" role="alert">{e.path}</p>}
                  </div>
                  <label className="form__check">
                    <input type="checkbox" checked={r.isNewTab} onChange={(ev) => update(section, r.key, { isNewTab: ev.target.checked })} /> Opens in a new tab
                  </label>
                  <div className="menu-editor__actions">
                    <button type="button" className="btn btn--small" onClick={() => move(section, i, -1)} disabled={i === 0} aria-label={`Move ${place} up`}>↑ Up</button>
                    <button type="button" className="btn btn--small" onClick={() => move(section, i, 1)} disabled={i === rows[section].length - 1} aria-label={`Move ${place} down`}>↓ Down</button>
                    <button type="button" className="btn btn--small btn--danger" onClick={() => change(section, (list) => list.filter((x) => x.key !== r.key))} aria-label={`Remove ${place}`}>Remove</button>
                  </div>
                </li>
              );
            })}
          </ol>
          <button type="button" className="btn btn--small" onClick={() => change(section, (list) => [...list, make()])} disabled={total >= MAX_ITEMS} data-testid={`${testId}-add-${section}`}>
            + Add a {section} link
          </button>
        </fieldset>
      ))}
      <FormAlert message={formError} />
      <button className="btn btn--primary" type="submit" disabled={busy} data-testid={`${testId}-submit`}>
        {busy ? 'Saving…' : 'Save menus'}
      </button>
    </form>
  );
}
