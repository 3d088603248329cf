import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { Promotion } from '../../../common/schemas/money.js';
import { MAX_OFFER_BPS } from '../../../common/offers.js';
import { formatPercent, parsePercent } from '../../../common/money.js';
import { createPromotionStudio } from '../../lib/stores/studio.js';
import { islandZone, readableTime } from '../../lib/local-time.js';
import { useMounted } from '../../lib/use-mounted.js';

/**
 * Performer studio: promotions for new subscribers (POST /performer/promotions): a discount of the first period
 * between two times, optionally for at most N fans; the running ones can be ended now.
 */
export default function StudioPromotions({ initial }: { initial: Promotion[] }) {
  const [studio] = useState(() => createPromotionStudio(initial));
  const { items, saving, ending, errors } = useStore(studio.store);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const value = parsePercent(String(data.get('percent') ?? ''), { min: 100, max: MAX_OFFER_BPS });
    if (!value.ok) return studio.invalid({ valueBps: value.message });
    const startsAt = Date.parse(String(data.get('startsAt') ?? ''));
    const endsAt = Date.parse(String(data.get('endsAt') ?? ''));
    if (Number.isNaN(startsAt) || Number.isNaN(endsAt)) return studio.invalid({ endsAt: 'Choose when it starts and ends' });
    const maxText = String(data.get('maxUses') ?? '').trim();
    const maxUses = maxText === '' ? null : Number(maxText);
    if (maxUses !== null && (!Number.isInteger(maxUses) || maxUses < 1)) return studio.invalid({ maxUses: 'A whole number of fans, or empty for no limit' });
    // datetime-local is the performer's own time: Date.parse reads it so, and the API gets UTC.
    if (await studio.create({ valueBps: value.value, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(endsAt).toISOString(), maxUses })) form.reset();
  };
  const zone = islandZone(useMounted());
  const when = (iso: string | null) => (iso ? readableTime(iso, zone) : '—');
  return (
    <section className="studio-panel" aria-labelledby="promotions-heading" data-testid="studio-promotions">
      <h2 id="promotions-heading">Promotions for new subscribers</h2>
      <p className="form__hint">A discount on the first period of fans who never subscribed to you, applied without a code. Renewals are at your regular price.</p>
      <form className="form" onSubmit={onSubmit} data-testid="promotion-form">
        <div className="form__field">
          <label htmlFor="promo-percent">Discount (%)</label>
          <input id="promo-percent" name="percent" inputMode="decimal" placeholder="20" data-testid="promotion-percent" />
          {errors.valueBps ? <p className="form__error">{errors.valueBps}</p> : null}
        </div>
        <div className="form__field">
          <label htmlFor="promo-start">Starts</label>
          <input id="promo-start" name="startsAt" type="datetime-local" data-testid="promotion-starts" />
          {errors.startsAt ? <p className="form__error">{errors.startsAt}</p> : null}
        </div>
        <div className="form__field">
          <label htmlFor="promo-end">Ends</label>
          <input id="promo-end" name="endsAt" type="datetime-local" data-testid="promotion-ends" />
          {errors.endsAt ? <p className="form__error">{errors.endsAt}</p> : null}
        </div>
        <div className="form__field">
          <label htmlFor="promo-max">For at most (fans)</label>
          <input id="promo-max" name="maxUses" inputMode="numeric" placeholder="No limit" data-testid="promotion-max" />
          {errors.maxUses ? <p className="form__error">{errors.maxUses}</p> : null}
        </div>
        <div className="form__actions">
          <button type="submit" className="btn btn--primary" disabled={saving} data-testid="promotion-submit">{saving ? 'Saving…' : 'Create promotion'}</button>
        </div>
      </form>
      {items.length ? (
        <ul className="promotion-list" data-testid="promotion-list">
          {items.map((p) => (
            <li key={p._id} className="promotion-list__item" data-testid="promotion-item">
              <strong>{formatPercent(p.valueBps)} off</strong> · {when(p.startsAt)} to {when(p.endsAt)} ·{' '}
              {p.maxUses === null ? `${p.usedCount} used` : `${p.usedCount} of ${p.maxUses} used`} · <span data-testid="promotion-state">{p.state}</span>
              {p.state !== 'ended' ? (
                <button type="button" className="btn btn--small" disabled={ending === p._id} onClick={() => void studio.end(p._id)} data-testid="promotion-end">
                  {ending === p._id ? 'Ending…' : 'End now'}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p data-testid="promotion-empty">No promotions yet.</p>
      )}
    </section>
  );
}
