import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { countOf } from '../../common/plural.js';
import { follows, seedFollow, toggleFollow } from '../lib/stores/follows.js';

export interface FollowButtonProps {
  performerId: string;
  following: boolean;
  followerCount: number;
  /** Lists of performers (the Following page) show the button alone. */
  hideCount?: boolean;
}

/**
 * Follow / Following on a performer's page, for a signed-in visitor (a guest gets a link to log in, rendered by the
 * page without JavaScript). Following is free; the count beside it is the server's after each click.
 */
export default function FollowButton({ performerId, following, followerCount, hideCount = false }: FollowButtonProps) {
  useEffect(() => seedFollow(performerId, following, followerCount), [performerId, following, followerCount]);
  const state = useStore(follows)[performerId] ?? { following, followerCount, pending: false };
  return (
    <div className="follow" data-testid="follow">
      <button
        type="button"
        className={state.following ? 'btn follow__button is-following' : 'btn btn--primary follow__button'}
        aria-pressed={state.following}
        disabled={state.pending}
        onClick={() => void toggleFollow(performerId)}
        data-testid="follow-button"
      >
        {state.following ? 'Following' : 'Follow'}
      </button>
      {hideCount ? null : <span className="follow__count" data-testid="follower-count">{countOf(state.followerCount, 'follower')}</span>}
    </div>
  );
}
