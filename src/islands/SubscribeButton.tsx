import { useStore } from '@nanostores/react';
import type { PlanOffer } from '../../common/schemas/money.js';
import { formatPercent } from '../../common/money.js';
import { planLabel } from '../lib/offer-words.js';
import { pending, pendingKey, startSubscription } from '../lib/stores/payments.js';
import { goToLogin, useMoneyFormat } from './money/useMoney.js';

export interface SubscribeButtonProps {
  performerId: string;
  /**
   * Minor units, what the checkout charges (server/subscriptions/subscriptions.service.ts, subscriptionOffer). null:
   * that plan cannot be bought and has no button; 0: the price is not known here (the button shows none).
   */
  monthlyPrice: number | null;
  yearlyPrice: number | null;
  /**
   * Every plan with the viewer's first period (a free trial, a promotion), as the checkout charges it
   * (subscriptionOffer). When given, it replaces the two prices above.
   */
  plans?: PlanOffer[];
  subscribed?: boolean;
  loggedIn: boolean;
}

type PlanKey = 'monthly' | 'yearly' | 'bundle3' | 'bundle6' | 'bundle12';
const keyOf = (p: Pick<PlanOffer, 'type' | 'bundleMonths'>): PlanKey => (p.bundleMonths ? `bundle${p.bundleMonths}` : p.type);
const dateOf = (iso: string) => new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/**
 * The subscribe buttons: "Subscribe · $4.99/month" and the yearly plan, or with the performer's offers "Start 7-day
 * free trial, then $9.99/month", "3 months $26.97 (save 10 %)", a promotion's first price with its end and what is
 * left. A click creates the checkout and sends the buyer to the provider's page.
 */
export default function SubscribeButton({ performerId, monthlyPrice, yearlyPrice, plans, subscribed = false, loggedIn }: SubscribeButtonProps) {
  const money = useMoneyFormat();
  const busy = (useStore(pending)[pendingKey.subscribe(performerId)] ?? null) as PlanKey | null;
  if (subscribed) {
    return (
      <p className="form__success" data-testid="subscribe-active">
        You are subscribed. <a href="/account/subscriptions">Manage subscriptions</a>
      </p>
    );
  }
  const subscribe = async (plan: Pick<PlanOffer, 'type' | 'bundleMonths'>) => {
    if (!loggedIn) return goToLogin();
    await startSubscription(performerId, plan.type, plan.bundleMonths ?? undefined);
  };
  if (plans) {
    if (!plans.length) return null;
    const promotion = plans.find((p) => p.promotion)?.promotion ?? null;
    return (
      <div className="subscribe-offers" data-testid="subscribe-buttons">
        <div className="form__actions subscribe-buttons">
          {plans.map((p, i) => {
            const key = keyOf(p);
            return (
              <button key={key} type="button" className={i === 0 ? 'btn btn--primary' : 'btn'} disabled={busy !== null} onClick={() => subscribe(p)} data-testid={`subscribe-${key}`}>
                {busy === key ? 'Redirecting…' : planLabel(p, money)}
              </button>
            );
          })}
        </div>
        {promotion ? (
          <p className="form__hint subscribe-promotion" data-testid="subscribe-promotion">
            {formatPercent(promotion.valueBps)} off your first period as a new subscriber
            {promotion.endsAt ? `, until ${dateOf(promotion.endsAt)}` : ''}
            {promotion.left !== null ? ` · ${promotion.left} left` : ''}
          </p>
        ) : null}
      </div>
    );
  }
  if (monthlyPrice === null && yearlyPrice === null) return null;
  const label = (type: 'monthly' | 'yearly', price: number) =>
    price > 0 ? `Subscribe · ${money(price)}/${type === 'monthly' ? 'month' : 'year'}` : type === 'monthly' ? 'Subscribe monthly' : 'Subscribe yearly';
  return (
    <div className="form__actions subscribe-buttons" data-testid="subscribe-buttons">
      {monthlyPrice !== null && (
        <button type="button" className="btn btn--primary" disabled={busy !== null} onClick={() => subscribe({ type: 'monthly', bundleMonths: null })} data-testid="subscribe-monthly">
          {busy === 'monthly' ? 'Redirecting…' : label('monthly', monthlyPrice)}
        </button>
      )}
      {yearlyPrice !== null && (
        <button type="button" className={monthlyPrice === null ? 'btn btn--primary' : 'btn'} disabled={busy !== null} onClick={() => subscribe({ type: 'yearly', bundleMonths: null })} data-testid="subscribe-yearly">
          {busy === 'yearly' ? 'Redirecting…' : label('yearly', yearlyPrice)}
        </button>
      )}
    </div>
  );
}
