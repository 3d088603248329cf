import type { PerformerViewer } from '../../../common/schemas/member-shell.js';
import type { TipLimits } from '../../../common/tips.js';
import { countOf } from '../../../common/plural.js';
import FollowButton from '../FollowButton.js';
import MessageButton from '../messages/MessageButton.js';
import TipButton from '../TipButton.js';
import ReportButton from '../ReportButton.js';
import { usePerformerViewer } from './usePerformerViewer.js';

export interface PerformerActionsProps {
  performerId: string;
  performerName: string;
  /** Shown while the visitor's state is asked (the public count). */
  followerCount: number;
  tipLimits: TipLimits;
  /** The visitor's state when the page was rendered for them; null on the member shell (asked once on mount). */
  initial: PerformerViewer | null;
  /** Where a visitor whose session turned out to be gone logs in (and comes back here). */
  loginHref: string;
}

/**
 * A signed-in visitor's controls under a performer's name: Follow, Message (fans), Tip and Report; on one's own page
 * the follower count alone. A guest's are links to log in, rendered by the page without JavaScript.
 */
export default function PerformerActions({ performerId, performerName, followerCount, tipLimits, initial, loginHref }: PerformerActionsProps) {
  const { state, retry } = usePerformerViewer(performerId, initial);
  const count = (n: number) => <span className="follow__count" data-testid="follower-count">{countOf(n, 'follower')}</span>;
  if (state === null || state === 'failed') {
    return (
      <div className="profile-actions" aria-busy={state === null} data-testid="performer-actions-pending">
        <span className="follow__count">{countOf(followerCount, 'follower')}</span>
        {state === 'failed' && <button type="button" className="btn" onClick={retry} data-testid="performer-actions-retry">Could not load your follow and subscription. Try again</button>}
      </div>
    );
  }
  if (state === 'guest') {
    return (
      <>
        <div className="follow" data-testid="follow">
          <a className="btn btn--primary" href={loginHref} data-testid="follow-login">Follow</a>
          {count(followerCount)}
        </div>
        <a className="btn tip__open" href={loginHref} data-testid="tip-login">Tip</a>
        <div className="report-slot"><a className="report-action" href={loginHref} data-testid="report-login">Report this performer</a></div>
      </>
    );
  }
  if (state.self) return <div className="follow" data-testid="follow">{count(state.followerCount)}</div>;
  return (
    <>
      <div className="profile-actions">
        <FollowButton performerId={performerId} following={state.following} followerCount={state.followerCount} />
        {state.messaging && <MessageButton performerId={performerId} allowed={state.messaging.allowed} reason={state.messaging.reason} conversationId={state.messaging.conversationId} />}
      </div>
      <TipButton performerId={performerId} performerName={performerName} limits={tipLimits} />
      <div className="report-slot"><ReportButton targetType="performer" targetId={performerId} what="this performer" /></div>
    </>
  );
}
