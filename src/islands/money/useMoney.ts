import { useStore } from '@nanostores/react';
import { formatMoney } from '../../../common/money.js';
import { ui } from '../../lib/stores/ui.js';
import { navigate } from '../../lib/navigation.js';

/** Money display with the site's currency symbol (settings → ui store, docs/product.md). */
export function useMoneyFormat(): (minor: number) => string {
  const { currencySymbol } = useStore(ui);
  return (minor: number) => formatMoney(minor, currencySymbol || '$');
}

/** Guests are sent to log in first, then back here. */
export function goToLogin(): void {
  const next = typeof window === 'undefined' ? '/' : window.location.pathname + window.location.search;
  navigate(`/auth/login?next=${encodeURIComponent(next)}`);
}
