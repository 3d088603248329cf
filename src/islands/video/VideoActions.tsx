import type { VideoViewer } from '../../../common/schemas/member-shell.js';
import type { TipLimits } from '../../../common/tips.js';
import ReactionButtons from '../ReactionButtons.js';
import TipButton from '../TipButton.js';
import ReportButton from '../ReportButton.js';
import { useVideoViewer } from './useVideoViewer.js';

export interface VideoActionsProps {
  videoId: string;
  performerId: string;
  performerName: string;
  /** The public counts, as the page rendered them. */
  counts: { like: number; favourite: number };
  tipLimits: TipLimits;
  /** The visitor's state when the page was rendered for them; null on the member shell (asked once on mount). */
  initial: VideoViewer | null;
  /** Where a visitor whose session turned out to be gone logs in (and comes back here). */
  loginHref: string;
}

/**
 * A signed-in visitor's controls under a video: like, favourite and watch later as they left them, Tip and Report
 * (none of those two on one's own video). The buttons wait, disabled, until the visitor's state is known.
 */
export default function VideoActions({ videoId, performerId, performerName, counts, tipLimits, initial, loginHref }: VideoActionsProps) {
  const { state } = useVideoViewer(videoId, initial);
  const known = typeof state === 'object' && state !== null;
  return (
    <>
      {/* Mounted again once the state is known, so the buttons start from what the visitor has. */}
      <ReactionButtons
        key={known ? 'member' : String(state)}
        objectType="video"
        objectId={videoId}
        loggedIn={state !== 'guest'}
        pending={state === null || state === 'failed'}
        counts={counts}
        reacted={known ? state.reacted : {}}
      />
      {state === 'guest' ? (
        <>
          <a className="btn tip__open" href={loginHref} data-testid="tip-login">Tip</a>
          <div className="report-slot"><a className="report-action" href={loginHref} data-testid="report-login">Report this video</a></div>
        </>
      ) : known && !state.self ? (
        <>
          <TipButton performerId={performerId} performerName={performerName} limits={tipLimits} context={{ type: 'video', id: videoId }} />
          <div className="report-slot"><ReportButton targetType="video" targetId={videoId} what="this video" /></div>
        </>
      ) : null}
    </>
  );
}
