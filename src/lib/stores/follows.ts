import { map } from 'nanostores';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { pushToast } from './toast.js';
import { registerReset } from './reset.js';

/**
 * Whom the signed-in user follows, as the follow buttons show it, keyed by performer id. The server's answer is the
 * truth: a toggle sets `following` and `followerCount` from it (docs/product.md, Follows and the feed).
 */
export interface FollowUiState {
  following: boolean;
  followerCount: number;
  pending: boolean;
}

export const follows = map<Record<string, FollowUiState>>({});

/** The state as the page rendered it (kept when the store already knows better). */
export function seedFollow(performerId: string, following: boolean, followerCount: number): void {
  if (!follows.get()[performerId]) follows.setKey(performerId, { following, followerCount, pending: false });
}

export async function toggleFollow(performerId: string): Promise<void> {
  const current = follows.get()[performerId] ?? { following: false, followerCount: 0, pending: false };
  if (current.pending) return;
  follows.setKey(performerId, { ...current, pending: true });
  try {
    const state = await call(({ engagement }) => (current.following ? engagement.unfollow(performerId) : engagement.follow(performerId)));
    follows.setKey(performerId, { following: state.following, followerCount: state.followerCount, pending: false });
  } catch (err) {
    follows.setKey(performerId, { ...current, pending: false });
    pushToast('error', errorMessage(err, 'Error occured, please try again later'));
  }
}

registerReset('follows', () => follows.set({}));
