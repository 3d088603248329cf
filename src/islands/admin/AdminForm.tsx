import { useState, type FormEvent } from 'react';
import type { AdminMethod } from '../../lib/api.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';
import { Field, FormAlert } from '../shared/Field.js';
import { useFormErrors } from '../shared/useFormErrors.js';

export type AdminFieldType = 'text' | 'textarea' | 'number' | 'checkbox' | 'select' | 'json' | 'datetime' | 'password';

export interface AdminField {
  name: string;
  label: string;
  type?: AdminFieldType;
  options?: Array<{ value: string; label: string }>;
  hint?: string;
  /** Empty value: omitted from the body (default), or sent as null. */
  emptyAs?: 'omit' | 'null';
}

export interface AdminFormProps {
  fields: AdminField[];
  method: AdminMethod;
  path: string;
  initial?: Record<string, unknown>;
  submitLabel: string;
  testId: string;
  /** Toast on success. */
  success?: string;
  /** Reload the page after success so the server-rendered lists show the change (default true). */
  reload?: boolean;
}

const text = (v: unknown, type: AdminFieldType) => {
  if (v === null || v === undefined) return '';
  if (type === 'json') return JSON.stringify(v, null, 2);
  if (type === 'datetime' && typeof v === 'string') return v.slice(0, 16);
  return String(v);
};

/** Values of the form → the JSON body: numbers, booleans, parsed JSON, empty fields omitted or null. */
export function toBody(fields: AdminField[], values: Record<string, string | boolean>): { body: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const type = f.type ?? 'text';
    const v = values[f.name];
    if (type === 'checkbox') {
      body[f.name] = Boolean(v);
      continue;
    }
    const s = String(v ?? '').trim();
    if (s === '') {
      if (f.emptyAs === 'null') body[f.name] = null;
      continue;
    }
    if (type === 'number') {
      const n = Number(s);
      if (!Number.isFinite(n)) errors[f.name] = 'Enter a number';
      else body[f.name] = n;
    } else if (type === 'json') {
      try {
        body[f.name] = JSON.parse(s);
      } catch {
        errors[f.name] = 'This is not valid JSON';
      }
    } else if (type === 'datetime') {
      const d = new Date(s);
      if (Number.isNaN(d.getTime())) errors[f.name] = 'Enter a date and time';
      else body[f.name] = d.toISOString();
    } else body[f.name] = s;
  }
  return { body, errors };
}

/** A console form: fields described by props, sent as JSON through the one API client. */
export default function AdminForm({ fields, method, path, initial = {}, submitLabel, testId, success = 'Saved', reload = true }: AdminFormProps) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, (f.type ?? 'text') === 'checkbox' ? Boolean(initial[f.name]) : text(initial[f.name], f.type ?? 'text')])),
  );
  const [busy, setBusy] = useState(false);
  const { fieldErrors, formError, clear, fail } = useFormErrors(fields.map((f) => f.name));
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    clear();
    const { body, errors } = toBody(fields, values);
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    setBusy(true);
    try {
      await admin.send(method, path, body);
      toast.success(success);
      if (reload) window.location.reload();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form admin-form" onSubmit={onSubmit} data-testid={testId} aria-busy={busy}>
      {fields.map((f) => {
        const type = f.type ?? 'text';
        const error = localErrors[f.name] ?? fieldErrors[f.name];
        const set = (v: string | boolean) => setValues((all) => ({ ...all, [f.name]: v }));
        return (
          <Field key={f.name} label={f.label} error={error} hint={f.hint}>
            {(control) =>
              type === 'textarea' || type === 'json' ? (
                <textarea {...control} name={f.name} rows={type === 'json' ? 10 : 4} value={String(values[f.name])} onChange={(e) => set(e.target.value)} />
              ) : type === 'checkbox' ? (
                <input {...control} type="checkbox" name={f.name} checked={Boolean(values[f.name])} onChange={(e) => set(e.target.checked)} />
              ) : type === 'select' ? (
                <select {...control} name={f.name} value={String(values[f.name])} onChange={(e) => set(e.target.value)}>
                  {(f.options ?? []).map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  {...control}
                  name={f.name}
                  type={type === 'number' ? 'number' : type === 'datetime' ? 'datetime-local' : type === 'password' ? 'password' : 'text'}
                  autoComplete={type === 'password' ? 'new-password' : 'off'}
                  value={String(values[f.name])}
                  onChange={(e) => set(e.target.value)}
                />
              )
            }
          </Field>
        );
      })}
      <FormAlert message={formError} />
      <button className="btn btn--primary" type="submit" disabled={busy} data-testid={`${testId}-submit`}>
        {busy ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
