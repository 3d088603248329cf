import type { VideoViewer } from '../../../common/schemas/member-shell.js';
import VideoPlayer from '../VideoPlayer.js';
import ItemPaywall from '../ItemPaywall.js';
import { useVideoViewer } from './useVideoViewer.js';

export interface VideoStageProps {
  videoId: string;
  performerId: string;
  title: string;
  poster: string | null;
  /** What a locked video shows: its teaser clip (with this picture as its poster), else this picture. */
  teaser: string | null;
  image: string | null;
  /** Why it is locked ("Subscribe to … to watch this video in full."), or that it is still processing. */
  lockText: string;
  /** The sale price as shown, for a video on sale. */
  priceLabel: string | null;
  /** Minor units when the video can be bought, else null. */
  buyPrice: number | null;
  /** The visitor's state when the page was rendered for them; null on the member shell (asked once on mount). */
  initial: VideoViewer | null;
  /** Where a visitor whose session turned out to be gone logs in (and comes back here). */
  loginHref: string;
}

/**
 * A signed-in visitor's view of a video a guest may not watch: the full video when it is open to them (its file signed
 * for them alone, so never in the page every member shares), else the preview and what opens it, priced as the
 * checkout would charge them. A guest's paywall is rendered by the page without JavaScript.
 */
export default function VideoStage({ videoId, performerId, title, poster, teaser, image, lockText, priceLabel, buyPrice, initial, loginHref }: VideoStageProps) {
  const { state, retry } = useVideoViewer(videoId, initial);
  if (typeof state === 'object' && state && state.media) return <VideoPlayer videoId={videoId} media={state.media} poster={poster} title={title} />;
  return (
    <div className="locked-preview" data-testid="locked-video">
      {teaser ? (
        <video data-testid="teaser" src={teaser} poster={image ?? undefined} muted autoPlay loop playsInline preload="metadata" />
      ) : (
        <img src={image ?? undefined} alt={title} width={1280} height={720} />
      )}
      <div className="lock-box" data-testid="lock-box">
        <span>🔒 {lockText}</span>
        {priceLabel && <span className="lock-box__price" data-testid="video-price">{priceLabel}</span>}
        {state === null || state === 'failed' ? (
          <div className="paywall" aria-busy={state === null} data-testid="paywall-pending">
            {state === 'failed' && <button type="button" className="btn" onClick={retry} data-testid="video-viewer-retry">Could not check your access. Try again</button>}
          </div>
        ) : state === 'guest' ? (
          <div className="paywall paywall--guest" data-testid="paywall">
            <a className="btn btn--primary" href={loginHref} rel="nofollow" data-testid="paywall-login">Log in to watch</a>
          </div>
        ) : state.locked ? (
          <ItemPaywall itemType="video" itemId={videoId} performerId={performerId} offer={state.offer} buyPrice={buyPrice} />
        ) : null}
      </div>
    </div>
  );
}
