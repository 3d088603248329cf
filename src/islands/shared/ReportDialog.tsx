import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { REPORT_DETAILS_MAX_LENGTH, REPORT_REASON_LABELS, REPORT_REASONS } from '../../../common/reports.js';
import type { ReportReason, ReportTargetType } from '../../../common/enums.js';
import { sendReport } from '../../lib/stores/reports.js';
import '../../styles/report.css';

export interface ReportDialogProps {
  open: boolean;
  targetType: ReportTargetType;
  targetId: string;
  /** What is reported, in words: "this video", "this comment". */
  what: string;
  onClose: () => void;
}

type Step = { kind: 'form'; error: string | null } | { kind: 'sending' } | { kind: 'done'; message: string };

/**
 * The report form in a modal `<dialog>` (focus stays inside, Escape closes it, the page behind is inert): a reason
 * from the fixed list (common/reports.ts) and optional words. Fits a 390 px phone.
 */
export function ReportDialog({ open, targetType, targetId, what, onClose }: ReportDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [reason, setReason] = useState<ReportReason | null>(null);
  const [details, setDetails] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'form', error: null });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setStep({ kind: 'form', error: null });
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!reason) {
      setStep({ kind: 'form', error: 'Choose a reason' });
      return;
    }
    setStep({ kind: 'sending' });
    const trimmed = details.trim();
    const outcome = await sendReport({ targetType, targetId, reason, ...(trimmed ? { details: trimmed } : {}) });
    if (outcome.status === 'error') setStep({ kind: 'form', error: outcome.message });
    else {
      setStep({ kind: 'done', message: outcome.status === 'sent' ? 'Thank you. An admin will review your report, and you will be told what was decided.' : outcome.message });
      setReason(null);
      setDetails('');
    }
  };

  return (
    <dialog ref={ref} className="report-dialog" aria-labelledby={`${id}-title`} onClose={onClose} data-testid="report-dialog">
      <h2 id={`${id}-title`} className="report-dialog__title">
        Report {what}
      </h2>
      {step.kind === 'done' ? (
        <div className="form__success" role="status" data-testid="report-done">
          <p>{step.message}</p>
          <div className="form__actions">
            <button type="button" className="btn btn--primary" onClick={() => ref.current?.close()} autoFocus>
              Close
            </button>
          </div>
        </div>
      ) : (
        <form className="form" onSubmit={onSubmit} noValidate>
          <fieldset className="report-dialog__reasons">
            <legend>Why are you reporting it?</legend>
            {REPORT_REASONS.map((r) => (
              <label key={r} className="form__check">
                <input type="radio" name={`${id}-reason`} value={r} checked={reason === r} onChange={() => setReason(r)} data-testid={`report-reason-${r}`} />
                {REPORT_REASON_LABELS[r]}
              </label>
            ))}
          </fieldset>
          <div className="form__field">
            <label htmlFor={`${id}-details`}>Anything to add? (optional)</label>
            <textarea id={`${id}-details`} value={details} maxLength={REPORT_DETAILS_MAX_LENGTH} onChange={(e) => setDetails(e.target.value)} rows={3} data-testid="report-details" />
          </div>
          {step.kind === 'form' && step.error ? (
            <p className="form__error" role="alert" data-testid="report-error">
              {step.error}
            </p>
          ) : null}
          <div className="form__actions">
            <button type="submit" className="btn btn--primary" disabled={step.kind === 'sending'} data-testid="report-submit">
              {step.kind === 'sending' ? 'Sending…' : 'Send report'}
            </button>
            <button type="button" className="btn" onClick={() => ref.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
