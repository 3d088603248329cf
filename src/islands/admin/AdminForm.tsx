import { useState, type FormEvent } from 'react';
import { MONEY_HINT, moneyInput, parseMoney, parsePercent, PERCENT_HINT, percentInput } from '../../../common/money.js';
import type { AdminMethod } from '../../lib/api/admin.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';
import { Field, FormAlert } from '../shared/Field.js';
import { useFormErrors } from '../shared/useFormErrors.js';

/**
 * `money`: typed as "4.99" in the site currency, sent as integer minor units; `percent`: typed as "15", sent as basis
 * points. The conversion is common/money.ts (parseMoney, parsePercent); the API never sees a float.
 */
export type AdminFieldType = 'text' | 'textarea' | 'number' | 'checkbox' | 'select' | 'json' | 'datetime' | 'password' | 'money' | 'percent';

export interface AdminField {
  name: string;
  label: string;
  type?: AdminFieldType;
  options?: Array<{ value: string; label: string }>;
  hint?: string;
  /** Empty value: omitted from the body (default), sent as null, or sent as "" (a setting that may be cleared). */
  emptyAs?: 'omit' | 'null' | 'empty';
  /** An empty value is refused in the browser with the field's own words ("Enter an amount like 4.99"). */
  required?: boolean;
  /** money / percent: the bounds the API takes, in its units (minor units, basis points). */
  min?: number;
  max?: number;
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
  /** The site's currency symbol, shown in front of money fields and accepted in what is typed. */
  currencySymbol?: string;
}

const text = (v: unknown, type: AdminFieldType) => {
  if (v === null || v === undefined) return '';
  if (type === 'json') return JSON.stringify(v, null, 2);
  if (type === 'datetime' && typeof v === 'string') return v.slice(0, 16);
  if (type === 'money' && typeof v === 'number') return moneyInput(v);
  if (type === 'percent' && typeof v === 'number') return percentInput(v);
  return String(v);
};

/** Values of the form → the JSON body: numbers, minor units, basis points, booleans, parsed JSON, empty fields omitted or null. */
export function toBody(fields: AdminField[], values: Record<string, string | boolean>, currencySymbol = '$'): { body: Record<string, unknown>; errors: Record<string, string> } {
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
    if (s === '' && f.required) {
      errors[f.name] = type === 'money' ? MONEY_HINT : type === 'percent' ? PERCENT_HINT : 'This field is required';
      continue;
    }
    if (s === '') {
      if (f.emptyAs === 'null') body[f.name] = null;
      else if (f.emptyAs === 'empty') body[f.name] = '';
      continue;
    }
    if (type === 'money' || type === 'percent') {
      const bounds = { ...(f.min !== undefined ? { min: f.min } : {}), ...(f.max !== undefined ? { max: f.max } : {}) };
      const parsed = type === 'money' ? parseMoney(s, { symbol: currencySymbol, ...bounds }) : parsePercent(s, bounds);
      if (parsed.ok) body[f.name] = parsed.value;
      else errors[f.name] = parsed.message;
    } else if (type === 'number') {
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
export default function AdminForm({ fields, method, path, initial = {}, submitLabel, testId, success = 'Saved', reload = true, currencySymbol = '$' }: AdminFormProps) {
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
    const { body, errors } = toBody(fields, values, currencySymbol);
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
              ) : type === 'money' || type === 'percent' ? (
                // The unit sits beside the box ("$ [4.99]", "[15] %"); what is typed is read by common/money.ts.
                <span className={`unit-input unit-input--${type}`}>
                  {type === 'money' && <span className="unit-input__unit" aria-hidden="true">{currencySymbol}</span>}
                  <input {...control} name={f.name} type="text" inputMode="decimal" autoComplete="off" placeholder={type === 'money' ? '4.99' : '15'}
                    value={String(values[f.name])} onChange={(e) => set(e.target.value)} />
                  {type === 'percent' && <span className="unit-input__unit" aria-hidden="true">%</span>}
                </span>
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
