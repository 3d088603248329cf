import type { PlanOffer } from '../../common/schemas/money.js';
import { formatPercent } from '../../common/money.js';

/*
 * The subscription plans in words, for the subscribe buttons (SubscribeButton) and the guest's paywall links alike:
 * the price the checkout charges now, then at each renewal (server/subscriptions/offers.ts).
 */

/** A plan's button in words, its price the one the checkout charges now and then at each renewal. */
export function planLabel(p: PlanOffer, money: (minor: number) => string): string {
  const unit = p.bundleMonths ? `every ${p.bundleMonths} months` : p.type === 'monthly' ? '/month' : '/year';
  const then = p.bundleMonths ? `${money(p.price)} ${unit}` : `${money(p.price)}${unit}`;
  if (p.trialDays) return `Start ${p.trialDays}-day free trial, then ${then}`;
  const save = p.discountBps ? ` (save ${formatPercent(p.discountBps).replace(' %', '%')})` : '';
  if (p.bundleMonths) {
    return p.firstPrice < p.price
      ? `${p.bundleMonths} months ${money(p.firstPrice)}, then ${money(p.price)}${save}`
      : `${p.bundleMonths} months ${money(p.price)}${save}`;
  }
  if (p.firstPrice < p.price) return `Subscribe · ${money(p.firstPrice)} first ${p.type === 'monthly' ? 'month' : 'year'}, then ${then}`;
  return `Subscribe · ${then}`;
}
