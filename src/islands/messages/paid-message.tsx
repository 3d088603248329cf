import { useStore } from '@nanostores/react';
import { parseMoney } from '../../../common/money.js';
import type { MessageItem } from '../../../common/schemas/messages.js';
import { buyMessage, pending, pendingKey } from '../../lib/stores/payments.js';
import { ui } from '../../lib/stores/ui.js';
import { useMoneyFormat } from '../money/useMoney.js';

/**
 * Paid messages in the browser (server/messages/README.md, "Paid messages"): the performer's optional price beside the
 * files they attach (the thread's composer and the studio's mass message), the recipient's locked files with an
 * Unlock button that goes through the checkout like any purchase, and the sender's note of what the message costs.
 */

/** What the price field holds: "" for free, else the amount typed (checked with `priceOf`). */
export function priceOf(text: string, symbol: string): { ok: true; value: number } | { ok: false; message: string } {
  if (!text.trim()) return { ok: true, value: 0 };
  const parsed = parseMoney(text, { symbol, min: 1 });
  return parsed.ok ? parsed : { ok: false, message: parsed.message };
}

/** The currency symbol the price field reads and shows. */
export function useCurrencySymbol(): string {
  return useStore(ui).currencySymbol || '$';
}

/** The optional price of a message with files: empty is free. */
export function PriceField({ id, value, onChange, error }: { id: string; value: string; onChange: (v: string) => void; error?: string | null }) {
  const symbol = useCurrencySymbol();
  return (
    <span className="price-field">
      <label htmlFor={id}>Price to unlock ({symbol}, optional)</label>
      <input
        id={id}
        inputMode="decimal"
        autoComplete="off"
        placeholder="Free"
        value={value}
        size={8}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={error ? `${id}-error` : `${id}-hint`}
        aria-invalid={error ? true : undefined}
        data-testid="message-price"
      />
      {error ? (
        <span id={`${id}-error`} className="form__error" role="alert">{error}</span>
      ) : (
        <span id={`${id}-hint`} className="form__hint">The text stays free; the files open once bought.</span>
      )}
    </span>
  );
}

const countOfFiles = (m: MessageItem) => {
  const pictures = m.lockedAttachments.filter((a) => a.kind === 'image').length;
  const videos = m.lockedAttachments.length - pictures;
  const words = [pictures ? `${pictures} ${pictures === 1 ? 'picture' : 'pictures'}` : '', videos ? `${videos} ${videos === 1 ? 'video' : 'videos'}` : ''].filter(Boolean);
  return words.join(' and ') || 'Files';
};

/** The recipient's side of a locked message: what it holds, and Unlock for its price. */
export function LockedFiles({ message }: { message: MessageItem }) {
  const money = useMoneyFormat();
  const busy = Boolean(useStore(pending)[pendingKey.message(message._id)]);
  return (
    <div className="bubble__locked" data-testid="message-locked">
      <p className="bubble__locked-what">
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <rect x="5" y="11" width="14" height="10" rx="2" fill="none" stroke="currentColor" strokeWidth="2" />
          <path d="M8 11V8a4 4 0 0 1 8 0v3" fill="none" stroke="currentColor" strokeWidth="2" />
        </svg>
        {countOfFiles(message)}, locked
      </p>
      <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void buyMessage(message._id)} data-testid="message-unlock">
        {busy ? 'Redirecting…' : `Unlock for ${money(message.price)}`}
      </button>
    </div>
  );
}

/** The sender's (and an admin's) note on a priced message: its price and whether it was bought. */
export function PriceNote({ message }: { message: MessageItem }) {
  const money = useMoneyFormat();
  return (
    <span className="bubble__price" data-testid="message-price-note">
      {' · '}{money(message.price)}{message.purchased ? ', unlocked' : ', not unlocked yet'}
    </span>
  );
}
