import type { PerformerViewer } from '../../../common/schemas/member-shell.js';
import type { PlanOffer } from '../../../common/schemas/money.js';
import SubscribeButton from '../SubscribeButton.js';
import { usePerformerViewer } from './usePerformerViewer.js';

export interface PerformerSubscribeProps {
  performerId: string;
  /** The plans as a guest is offered them: for a visitor whose session turned out to be gone. */
  guestPlans: PlanOffer[];
  initial: PerformerViewer | null;
}

/**
 * A signed-in visitor's subscribe buttons on a performer's page, priced as the checkout would charge them (a free
 * trial only for a new subscriber), or that they are subscribed; none on one's own page. Shares the visitor's state
 * with PerformerActions (one request on the member shell).
 */
export default function PerformerSubscribe({ performerId, guestPlans, initial }: PerformerSubscribeProps) {
  const { state } = usePerformerViewer(performerId, initial);
  if (state === null || state === 'failed') return <div className="subscribe-offers" aria-busy={state === null} data-testid="subscribe-pending" />;
  if (state === 'guest') return <SubscribeButton performerId={performerId} monthlyPrice={null} yearlyPrice={null} plans={guestPlans} loggedIn={false} />;
  if (state.self) return null;
  return (
    <SubscribeButton performerId={performerId} monthlyPrice={state.offer.monthly} yearlyPrice={state.offer.yearly} plans={state.offer.plans} subscribed={state.subscribed} loggedIn />
  );
}
