import { useId, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { TipContextType } from '../../common/enums.js';
import { parseMoney } from '../../common/money.js';
import { TIP_NOTE_MAX, tipAmountProblem, tipPresets, type TipLimits } from '../../common/tips.js';
import { pending, pendingKey, sendTip } from '../lib/stores/payments.js';
import { ui } from '../lib/stores/ui.js';
import { Field } from './shared/Field.js';
import { useMoneyFormat } from './money/useMoney.js';
import '../styles/tips.css';

export interface TipButtonProps {
  performerId: string;
  performerName: string;
  /** Where the tip is given (the performer's page when absent). */
  context?: { type: TipContextType; id: string };
  /** The site's limits (minor units), as the server checks them. */
  limits: TipLimits;
}

/**
 * "Tip" for a signed-in fan (a guest's is a link to log in, rendered by the page; the performer's own page has none):
 * a small dialog with the preset amounts within the site's limits, a custom amount and an optional note, then the
 * provider's hosted page. The amount is checked here only to say so early; the server decides.
 */
export default function TipButton({ performerId, performerName, context, limits }: TipButtonProps) {
  const money = useMoneyFormat();
  const symbol = useStore(ui).currencySymbol || '$';
  const busy = Boolean(useStore(pending)[pendingKey.tip(performerId)]);
  const presets = tipPresets(limits);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [preset, setPreset] = useState<number>(presets[0]!);
  const [custom, setCustom] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | undefined>();

  /** The amount to send: the custom one when typed, else the chosen preset; or why it cannot be sent. */
  const chosen = (): { ok: true; value: number } | { ok: false; message: string } => {
    if (!custom.trim()) return { ok: true, value: preset };
    const parsed = parseMoney(custom, { symbol, min: 1 });
    if (!parsed.ok) return parsed;
    const problem = tipAmountProblem(parsed.value, limits, symbol);
    return problem ? { ok: false, message: problem.message } : parsed;
  };
  const current = chosen();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!current.ok) return setError(current.message);
    setError(undefined);
    const text = note.trim();
    await sendTip({ performerId, amount: current.value, ...(text ? { note: text } : {}), ...(context ? { context } : {}) });
  };

  return (
    <div className="tip" data-testid="tip">
      <button type="button" className="btn tip__open" onClick={() => dialog.current?.showModal()} data-testid="tip-button" aria-haspopup="dialog">
        Tip
      </button>
      <dialog ref={dialog} className="tip__dialog" aria-labelledby={titleId} data-testid="tip-dialog">
        <form className="form" onSubmit={(e) => void submit(e)} noValidate>
          <h2 id={titleId} className="tip__title">Tip {performerName}</h2>
          <fieldset className="tip__presets">
            <legend>Amount</legend>
            {presets.map((p) => (
              <button
                key={p}
                type="button"
                className={!custom.trim() && preset === p ? 'btn btn--primary' : 'btn'}
                aria-pressed={!custom.trim() && preset === p}
                onClick={() => {
                  setPreset(p);
                  setCustom('');
                  setError(undefined);
                }}
                data-testid="tip-preset"
              >
                {money(p)}
              </button>
            ))}
          </fieldset>
          <Field label="Custom amount" hint={`From ${money(limits.min)} to ${money(limits.max)}`} error={error}>
            {(control) => (
              <input {...control} inputMode="decimal" autoComplete="off" placeholder="e.g. 7.50" value={custom} onChange={(e) => setCustom(e.target.value)} data-testid="tip-custom" />
            )}
          </Field>
          <Field label="Note (optional)" hint={`At most ${TIP_NOTE_MAX} characters`}>
            {(control) => <textarea {...control} rows={2} maxLength={TIP_NOTE_MAX} value={note} onChange={(e) => setNote(e.target.value)} data-testid="tip-note" />}
          </Field>
          <div className="form__actions">
            <button type="button" className="btn" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className="btn btn--primary" disabled={busy} data-testid="tip-send">
              {busy ? 'Redirecting…' : current.ok ? `Send tip · ${money(current.value)}` : 'Send tip'}
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
