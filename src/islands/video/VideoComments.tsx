import { useStore } from '@nanostores/react';
import type { VideoViewer } from '../../../common/schemas/member-shell.js';
import type { LockedDiscussion } from '../../../common/schemas/engagement.js';
import type { Role } from '../../../common/enums.js';
import { currentUser } from '../../lib/stores/user.js';
import Comments from '../Comments.js';
import { formatCount, nounFor } from '../../../common/plural.js';
import { useVideoViewer } from './useVideoViewer.js';

export interface VideoCommentsProps {
  videoId: string;
  /** What opens the discussion while the video is locked. */
  needs: LockedDiscussion['needs'];
  commentCount: number;
  /** Where a locked discussion's prompt leads (the performer's page for a subscribers' video). */
  unlockHref: string | null;
  /** The discussion as a guest finds it: for a visitor whose session turned out to be gone. */
  guestLocked: boolean;
  /** The visitor's state, and who they are, when the page was rendered for them; null on the member shell. */
  initial: VideoViewer | null;
  viewer: { _id: string; role: Role } | null;
}

/**
 * A signed-in visitor's comments under a video: open to them when the video is (the server refuses the others), with
 * their own delete and report controls; only the count while it is locked.
 */
export default function VideoComments({ videoId, needs, commentCount, unlockHref, guestLocked, initial, viewer }: VideoCommentsProps) {
  const { state } = useVideoViewer(videoId, initial);
  const me = useStore(currentUser);
  if (state === null || state === 'failed') {
    return (
      <section className="comments" aria-busy="true" data-testid="comments" data-pending="">
        <h2 className="comments__head">
          <span className="comments__count">{formatCount(commentCount)}</span> {nounFor(commentCount, 'comment')}
        </h2>
      </section>
    );
  }
  const locked = state === 'guest' ? guestLocked : state.locked;
  const who = state === 'guest' ? null : (viewer ?? (me ? { _id: me._id, role: me.role } : null));
  return (
    <Comments
      key={state === 'guest' ? 'guest' : 'member'}
      objectType="video"
      objectId={videoId}
      viewer={who}
      locked={locked ? { needs, commentCount } : null}
      unlockHref={unlockHref}
    />
  );
}
