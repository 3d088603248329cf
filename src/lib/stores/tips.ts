import { formatMoney } from '../../../common/money.js';
import type { TipReceived } from '../../../common/realtime.js';
import { onRealtime } from './realtime-events.js';
import { toast } from './toast.js';
import { ui } from './ui.js';

/** What a performer's open page says when a tip arrives (`tip/received`, pushed after the settlement committed). */
export function tipNotice(tip: Pick<TipReceived, 'amount' | 'actorName'>, symbol: string): string {
  return `${tip.actorName ?? 'A fan'} tipped you ${formatMoney(tip.amount, symbol || '$')}!`;
}

/** Shows a toast for every tip received while a page is open; answers the function that stops it. */
export function listenForTips(): () => void {
  return onRealtime('tip/received', (tip) => toast.success(tipNotice(tip, ui.get().currencySymbol)));
}
