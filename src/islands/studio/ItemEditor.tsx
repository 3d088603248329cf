import { useState, type FormEvent } from 'react';
import type { SaveResult } from '../../lib/stores/studio.js';
import { toMajor, toMinor } from './UploadProgress.tsx';

export type EditFieldKind = 'text' | 'textarea' | 'select' | 'money' | 'int' | 'datetime' | 'tags';

export interface EditField {
  name: string;
  label: string;
  kind: EditFieldKind;
  /** The item's current value (minor units for money, ISO for datetime). */
  value: string | number | null | undefined | string[];
  options?: Array<[value: string, label: string]>;
  hint?: string;
  /** Shown only when this returns true for the form's current values (e.g. price only for sale items). */
  showIf?: (values: Record<string, string>) => boolean;
}

/** ISO-8601 → the `datetime-local` input's local "YYYY-MM-DDTHH:mm". */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function initialText(f: EditField): string {
  const v = f.value;
  if (v === null || v === undefined) return '';
  if (f.kind === 'money') return typeof v === 'number' && v > 0 ? toMajor(v) : '';
  if (f.kind === 'datetime') return typeof v === 'string' ? toLocalInput(v) : '';
  if (f.kind === 'tags') return Array.isArray(v) ? v.join(', ') : String(v);
  return String(v);
}

export interface ItemEditorProps<T> {
  /** Prefix of the inputs' ids (unique per item). */
  id: string;
  fields: EditField[];
  /**
   * Sends the changed fields only (the PUT endpoints keep what is not sent): a studio store's `update`, which
   * puts the answer in its list and says 'Saved', or answers the message and field errors to show here.
   */
  save: (changes: Record<string, unknown>) => Promise<SaveResult<T>>;
  onClose: () => void;
}

/**
 * The studio's inline editor of one existing item: a form prefilled with the item's values; Save sends what
 * changed (money in minor units, dates as ISO-8601, tags comma-separated) and shows the server's field errors.
 */
export default function ItemEditor<T>({ id, fields, save, onClose }: ItemEditorProps<T>) {
  const [initial] = useState(() => Object.fromEntries(fields.map((f) => [f.name, initialText(f)])));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shown = fields.filter((f) => !f.showIf || f.showIf(values));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setError(null);
    setFieldErrors({});
    const changes: Record<string, unknown> = {};
    const errors: Record<string, string> = {};
    for (const f of shown) {
      const text = values[f.name] ?? '';
      if (text === initial[f.name]) continue;
      if (f.kind === 'money') {
        const minor = toMinor(text);
        if (minor === undefined || Number.isNaN(minor)) errors[f.name] = 'Enter an amount, e.g. 19.99';
        else changes[f.name] = minor;
      } else if (f.kind === 'int') {
        if (!/^\d+$/.test(text.trim())) errors[f.name] = 'Enter a whole number';
        else changes[f.name] = Number(text.trim());
      } else if (f.kind === 'datetime') {
        changes[f.name] = text ? new Date(text).toISOString() : null;
      } else {
        changes[f.name] = f.kind === 'textarea' ? text : text.trim();
      }
    }
    // A sale needs its price with it: send the price shown when only the visibility changed.
    if (changes.visibility === 'sale' && changes.price === undefined && shown.some((f) => f.name === 'price')) {
      const minor = toMinor(values.price ?? '');
      if (minor === undefined || Number.isNaN(minor)) errors.price = 'Enter a sale price';
      else changes.price = minor;
    }
    if (Object.keys(errors).length) return setFieldErrors(errors);
    if (!Object.keys(changes).length) return onClose();
    setBusy(true);
    const result = await save(changes);
    setBusy(false);
    if (result.ok) return onClose();
    setFieldErrors(result.fieldErrors);
    setError(result.message);
  };

  return (
    <form className="form studio-panel" onSubmit={onSubmit} data-testid="item-editor" noValidate>
      {shown.map((f) => {
        const inputId = `${id}-${f.name}`;
        const common = {
          id: inputId,
          name: f.name,
          value: values[f.name] ?? '',
          'data-testid': `edit-${f.name}`,
          onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f.name]: e.target.value })),
        };
        return (
          <div className="form__field" key={f.name}>
            <label htmlFor={inputId}>{f.label}</label>
            {f.kind === 'textarea' ? (
              <textarea {...common} rows={4} />
            ) : f.kind === 'select' ? (
              <select {...common}>{(f.options ?? []).map(([value, label]) => <option key={value} value={value}>{label}</option>)}</select>
            ) : (
              <input
                {...common}
                type={f.kind === 'datetime' ? 'datetime-local' : f.kind === 'int' ? 'number' : 'text'}
                inputMode={f.kind === 'money' ? 'decimal' : undefined}
                min={f.kind === 'int' ? 0 : undefined}
              />
            )}
            {f.hint ? <p className="form__hint">{f.hint}</p> : null}
            {fieldErrors[f.name] ? <p className="form__error">{fieldErrors[f.name]}</p> : null}
          </div>
        );
      })}
      {error ? <p className="form__error" role="alert">{error}</p> : null}
      <div className="form__actions">
        <button type="submit" className="btn btn--primary" disabled={busy} data-testid="edit-save">{busy ? 'Saving…' : 'Save'}</button>
        <button type="button" className="btn btn--link" onClick={onClose} data-testid="edit-cancel">Cancel</button>
      </div>
    </form>
  );
}

export const VISIBILITY_OPTIONS: Array<[string, string]> = [['free', 'Everyone (free)'], ['subscribers', 'Subscribers'], ['sale', 'Buyers (sale)']];
export const STATUS_OPTIONS: Array<[string, string]> = [['active', 'Active'], ['inactive', 'Inactive'], ['draft', 'Draft']];
