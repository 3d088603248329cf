import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { StudioProfile as Profile } from '../../../common/schemas/studio.js';
import { createProfileStudio } from '../../lib/stores/studio.js';
import { toMajor, toMinor } from './UploadProgress.tsx';
import { BUNDLE_MONTHS, MAX_OFFER_BPS, MAX_TRIAL_DAYS } from '../../../common/offers.js';
import { parsePercent, percentInput } from '../../../common/money.js';

type BundleField = 'bundle3Bps' | 'bundle6Bps' | 'bundle12Bps';

/** Performer studio: bio, monthly and yearly subscription prices, the trial and bundle offers, blocked countries (PUT /performer/profile). */
export default function StudioProfile({ initial, currencySymbol }: { initial: Profile; currencySymbol: string }) {
  const [studio] = useState(() => createProfileStudio(initial));
  const { profile, saving, errors } = useStore(studio.store);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const monthlyPrice = toMinor(String(data.get('monthlyPrice') ?? '')) ?? 0;
    const yearlyPrice = toMinor(String(data.get('yearlyPrice') ?? '')) ?? 0;
    if (Number.isNaN(monthlyPrice) || Number.isNaN(yearlyPrice)) {
      studio.invalid({ monthlyPrice: 'Enter prices as numbers, e.g. 9.99' });
      return;
    }
    const trialText = String(data.get('trialDays') ?? '').trim();
    const trialDays = trialText === '' ? 0 : Number(trialText);
    if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > MAX_TRIAL_DAYS) {
      studio.invalid({ trialDays: `Enter whole days from 0 (no trial) to ${MAX_TRIAL_DAYS}` });
      return;
    }
    const bundles: Partial<Record<BundleField, number>> = {};
    for (const months of BUNDLE_MONTHS) {
      const field = `bundle${months}Bps` as const;
      const text = String(data.get(field) ?? '').trim();
      const parsed = text === '' ? ({ ok: true, value: 0 } as const) : parsePercent(text, { max: MAX_OFFER_BPS });
      if (!parsed.ok) {
        studio.invalid({ [field]: parsed.message });
        return;
      }
      bundles[field] = parsed.value;
    }
    const blockedCountries = String(data.get('blockedCountries') ?? '').split(/[\s,]+/).map((c) => c.trim().toUpperCase()).filter(Boolean);
    await studio.save({ bio: String(data.get('bio') ?? ''), monthlyPrice, yearlyPrice, trialDays, ...bundles, blockedCountries });
  };
  return (
    <form className="form studio-panel" onSubmit={onSubmit} data-testid="studio-profile-form">
      <div className="form__field">
        <label htmlFor="p-bio">Bio</label>
        <textarea id="p-bio" name="bio" rows={4} maxLength={2000} defaultValue={profile.bio ?? ''} />
        {errors.bio ? <p className="form__error">{errors.bio}</p> : null}
      </div>
      <div className="form__field">
        <label htmlFor="p-monthly">Monthly price ({currencySymbol})</label>
        <input id="p-monthly" name="monthlyPrice" inputMode="decimal" defaultValue={toMajor(profile.monthlyPrice)} data-testid="monthly-price" />
        {errors.monthlyPrice ? <p className="form__error">{errors.monthlyPrice}</p> : null}
      </div>
      <div className="form__field">
        <label htmlFor="p-yearly">Yearly price ({currencySymbol})</label>
        <input id="p-yearly" name="yearlyPrice" inputMode="decimal" defaultValue={toMajor(profile.yearlyPrice)} data-testid="yearly-price" />
        {errors.yearlyPrice ? <p className="form__error">{errors.yearlyPrice}</p> : null}
      </div>
      <fieldset className="form__fieldset" data-testid="studio-offers">
        <legend>Offers to subscribers</legend>
        <div className="form__field">
          <label htmlFor="p-trial">Free trial for new subscribers (days)</label>
          <input id="p-trial" name="trialDays" inputMode="numeric" defaultValue={String(profile.trialDays)} data-testid="trial-days" />
          <p className="form__hint">0 for none, at most {MAX_TRIAL_DAYS}. Once per fan: then the monthly price.</p>
          {errors.trialDays ? <p className="form__error">{errors.trialDays}</p> : null}
        </div>
        {BUNDLE_MONTHS.map((months) => {
          const field = `bundle${months}Bps` as const;
          return (
            <div className="form__field" key={months}>
              <label htmlFor={`p-${field}`}>{months}-month bundle discount (%)</label>
              <input id={`p-${field}`} name={field} inputMode="decimal" defaultValue={percentInput(profile[field])} data-testid={`bundle-${months}`} />
              {errors[field] ? <p className="form__error">{errors[field]}</p> : null}
            </div>
          );
        })}
        <p className="form__hint">0 means the bundle is not offered. A bundle renews at its own price every {BUNDLE_MONTHS.join(', ')} months.</p>
      </fieldset>
      <div className="form__field">
        <label htmlFor="p-blocked">Blocked countries</label>
        <input id="p-blocked" name="blockedCountries" defaultValue={profile.blockedCountries.join(', ')} placeholder="US, DE" data-testid="blocked-countries" />
        <p className="form__hint">Two-letter country codes, comma-separated. Visitors from these countries cannot see your profile or content.</p>
        {errors.blockedCountries ? <p className="form__error">{errors.blockedCountries}</p> : null}
      </div>
      <div className="form__actions">
        <button type="submit" className="btn btn--primary" disabled={saving} data-testid="studio-profile-submit">{saving ? 'Saving…' : 'Save'}</button>
        <a href={`/performers/${profile.username}`}>View your public profile</a>
      </div>
    </form>
  );
}
