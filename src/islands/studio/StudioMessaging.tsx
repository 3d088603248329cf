import { useEffect, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { MessagePolicy } from '../../../common/enums.js';
import { MESSAGE_MAX_ATTACHMENTS, MESSAGE_MAX_CHARS } from '../../../common/messages.js';
import { formatMoney } from '../../../common/money.js';
import type { BlockedFan, MassMessage } from '../../../common/schemas/messages.js';
import { createMessagingSettings } from '../../lib/stores/messages.js';
import { PriceField, priceOf, useCurrencySymbol } from '../messages/paid-message.js';

const choices: Array<[MessagePolicy, string, string]> = [
  ['subscribers', 'Subscribers', 'Fans with a running subscription may write to you first.'],
  ['fans', 'Everyone', 'Any signed-in fan may write to you first.'],
  ['nobody', 'Nobody', 'Nobody writes first; you can still write to fans who follow or subscribe to you, and answer.'],
];

/**
 * Performer studio: who may write first (PUT /performer/message-settings), a message to all subscribers or followers
 * with its delivery progress, and the fans blocked, each with Unblock.
 */
export default function StudioMessaging({ initial }: { initial: { messagePolicy: MessagePolicy; blocked: BlockedFan[]; mass: MassMessage[] } }) {
  const [settings] = useState(() => createMessagingSettings(initial));
  const { messagePolicy, blocked, saving, mass, sendingMass, massError } = useStore(settings.store);
  useEffect(() => settings.watchProgress(), [settings]);
  // The optional price of the files, for every copy (each fan unlocks their own).
  const [price, setPrice] = useState('');
  const [priceError, setPriceError] = useState<string | null>(null);
  const symbol = useCurrencySymbol();
  const onMass = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const files = (data.getAll('file') as File[]).filter((f) => f.size > 0).slice(0, MESSAGE_MAX_ATTACHMENTS);
    const priced = priceOf(price, symbol);
    const problem = !priced.ok ? priced.message : priced.value > 0 && !files.length ? 'Attach a picture or a video to sell' : null;
    setPriceError(problem);
    if (problem || !priced.ok) return;
    if (await settings.sendMass(String(data.get('text') ?? ''), data.get('audience') === 'followers' ? 'followers' : 'subscribers', files, priced.value)) {
      form.reset();
      setPrice('');
    }
  };
  return (
    <>
      <section className="studio-panel" aria-labelledby="message-policy-heading" data-testid="studio-message-policy">
        <h2 id="message-policy-heading">Who may message you first</h2>
        <fieldset className="form" disabled={saving}>
          <legend className="sr-only">Who may message you first</legend>
          {choices.map(([value, label, hint]) => (
            <label key={value} className="choice">
              <input type="radio" name="messagePolicy" value={value} checked={messagePolicy === value} onChange={() => void settings.setPolicy(value)} data-testid={`message-policy-${value}`} />
              <span><strong>{label}</strong> <span className="form__hint">{hint}</span></span>
            </label>
          ))}
        </fieldset>
      </section>
      <section className="studio-panel" aria-labelledby="mass-heading" data-testid="studio-mass">
        <h2 id="mass-heading">Message all your fans</h2>
        <p className="form__hint">One message into each fan's conversation with you. Fans you blocked do not get it.</p>
        <form className="form" onSubmit={onMass} data-testid="mass-form">
          <div className="form__field">
            <label htmlFor="mass-audience">To</label>
            <select id="mass-audience" name="audience" defaultValue="subscribers" data-testid="mass-audience">
              <option value="subscribers">All live subscribers</option>
              <option value="followers">All followers</option>
            </select>
          </div>
          <div className="form__field">
            <label htmlFor="mass-text">Message</label>
            <textarea id="mass-text" name="text" rows={3} maxLength={MESSAGE_MAX_CHARS} data-testid="mass-text" />
          </div>
          <div className="form__field">
            <label htmlFor="mass-files">Pictures or videos (optional)</label>
            <input id="mass-files" name="file" type="file" multiple accept="image/jpeg,image/png,image/webp,image/gif,video/mp4,video/quicktime,video/webm" />
          </div>
          <div className="form__field">
            <PriceField id="mass-price" value={price} onChange={setPrice} error={priceError} />
          </div>
          {massError ? <p className="form__error" role="alert" data-testid="mass-error">{massError}</p> : null}
          <div className="form__actions">
            <button type="submit" className="btn btn--primary" disabled={sendingMass} data-testid="mass-send">{sendingMass ? 'Sending…' : 'Send to all'}</button>
          </div>
        </form>
        {mass.length ? (
          <ul className="blocked-list" data-testid="mass-list">
            {mass.map((m) => (
              <li key={m._id} data-testid="mass-item">
                <span>{m.text || `${m.attachments} attachment${m.attachments === 1 ? '' : 's'}`} <span className="form__hint">to {m.audience}{m.price > 0 ? ` · ${formatMoney(m.price, symbol)} to unlock` : ''}</span></span>
                <span className="form__hint" data-testid="mass-progress">{m.status === 'done' ? `Delivered to ${m.delivered} of ${m.total}` : `Sending… ${m.delivered} of ${m.total}`}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <section className="studio-panel" aria-labelledby="blocked-heading" data-testid="studio-blocked">
        <h2 id="blocked-heading">Blocked fans</h2>
        <p className="form__hint">A blocked fan cannot message you, comment on your posts, videos and galleries, or start a new subscription. A subscription already running is kept until it ends.</p>
        {blocked.length === 0 ? <p className="empty" data-testid="blocked-empty">You have not blocked anyone.</p> : null}
        <ul className="blocked-list">
          {blocked.map((b) => (
            <li key={b._id} data-testid="blocked-fan">
              <img src={b.avatar} alt="" width="32" height="32" className="inbox__avatar" />
              <span>{b.name} <span className="form__hint">@{b.username}</span></span>
              <button type="button" className="btn" onClick={() => void settings.unblock(b._id)} data-testid="unblock">Unblock</button>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
