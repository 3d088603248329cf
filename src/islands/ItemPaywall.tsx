import type { SubscriptionOffer } from '../../common/schemas/money.js';
import SubscribeButton from './SubscribeButton.js';
import BuyButton from './BuyButton.js';

export interface ItemPaywallProps {
  itemType: 'video' | 'gallery';
  itemId: string;
  performerId: string;
  /** The performer's plans when a subscription opens the item, as the checkout would charge this visitor; else null. */
  offer: SubscriptionOffer | null;
  /** Minor units when the item can be bought, else null. */
  buyPrice: number | null;
}

/**
 * A signed-in visitor's buttons that open a locked video or gallery: the subscription plans when one would open it,
 * "Buy" when it is on sale. A guest's are plain links (src/components/GuestOffers.astro).
 */
export default function ItemPaywall({ itemType, itemId, performerId, offer, buyPrice }: ItemPaywallProps) {
  return (
    <div className="paywall" data-testid="paywall">
      {offer && (offer.monthly || offer.yearly) ? (
        <SubscribeButton performerId={performerId} monthlyPrice={offer.monthly} yearlyPrice={offer.yearly} plans={offer.plans} loggedIn />
      ) : null}
      {buyPrice ? <BuyButton itemType={itemType} itemId={itemId} price={buyPrice} /> : null}
    </div>
  );
}
