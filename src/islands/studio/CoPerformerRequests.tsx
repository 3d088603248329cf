import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { CoPerformerRequest } from '../../../common/schemas/consent.js';
import { createCoPerformerRequests } from '../../lib/stores/co-performers.js';

/**
 * Co-performer requests: the items other performers named the signed-in performer in. Confirm says "that is me, and I
 * agree to it being published"; decline keeps the item unpublished until its performer removes the name. A new
 * request appears without a reload (its notification is the signal). Dates are the server's ISO text, cut to the
 * day, so the server's render and the first browser render agree.
 */
export default function CoPerformerRequests({ initial }: { initial: CoPerformerRequest[] }) {
  const [requests] = useState(() => createCoPerformerRequests(initial));
  const { items, busy } = useStore(requests.store);
  useEffect(() => requests.listen(), [requests]);
  if (items.length === 0) return <p data-testid="co-requests-empty">Nobody has named you in their content yet.</p>;
  return (
    <ul className="co-requests" data-testid="co-requests">
      {items.map((r) => (
        <li key={r._id} className="co-requests__item" data-testid="co-request" data-id={r._id} data-status={r.status}>
          <span className="co-requests__what">
            <b>{r.owner.name}</b> named you in the {r.objectType} “{r.title ?? 'deleted item'}”
            <br />
            <small className="form__hint">{r.createdAt.slice(0, 10)}</small>
          </span>
          {r.status === 'pending' ? (
            <span>
              <button type="button" className="btn btn--primary" disabled={busy === r._id} onClick={() => void requests.answer(r._id, 'confirm')} data-testid="co-request-confirm">Confirm</button>{' '}
              <button type="button" className="btn" disabled={busy === r._id} onClick={() => void requests.answer(r._id, 'decline')} data-testid="co-request-decline">Decline</button>
            </span>
          ) : (
            <span className={`co-requests__state is-${r.status}`} data-testid="co-request-status">{r.status === 'confirmed' ? 'Confirmed' : 'Declined'}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
