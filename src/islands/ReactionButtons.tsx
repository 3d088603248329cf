import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import type { EngagementObjectType, ReactionAction } from '../../common/enums.js';
import { navigate } from '../lib/navigation.js';
import { loadMyReactions, reactionKey, reactions as reactionsStore, seedReactions, subscribeReactionCounts, toggleReaction } from '../lib/stores/reactions.js';
import { formatCount, nounFor } from '../../common/plural.js';
import '../styles/engagement.css';

export interface ReactionButtonsProps {
  objectType: EngagementObjectType;
  objectId: string;
  loggedIn: boolean;
  /** Default: like and favourite, plus watch later on videos and galleries. */
  actions?: ReactionAction[];
  /** Counts as the page rendered them. */
  counts?: Partial<Record<'like' | 'favourite', number>>;
  /** What the viewer already has, when the page knows (otherwise asked from `GET /reactions/search`). */
  reacted?: Partial<Record<ReactionAction, boolean>>;
  /** Whether the viewer is signed in is not known yet: the buttons wait, disabled, and nothing is asked. */
  pending?: boolean;
}

const LABELS: Record<ReactionAction, [string, string]> = {
  like: ['Like', 'Liked'],
  favourite: ['Favourite', 'Favourited'],
  watch_later: ['Watch later', 'In watch later'],
};

/** Like / favourite / watch-later toggles with live counts. Guests are sent to the login page. */
export default function ReactionButtons({ objectType, objectId, loggedIn, actions, counts, reacted, pending = false }: ReactionButtonsProps) {
  const list = actions ?? (objectType === 'video' || objectType === 'gallery' ? ['like', 'favourite', 'watch_later'] : ['like', 'favourite']);
  const all = useStore(reactionsStore);

  useEffect(() => {
    seedReactions(
      objectType,
      objectId,
      Object.fromEntries(list.map((a) => [a, { count: a === 'watch_later' ? null : (counts?.[a] ?? undefined), reacted: reacted?.[a] }])),
    );
    if (loggedIn && !reacted && !pending) void loadMyReactions(objectType, [objectId]);
    return subscribeReactionCounts(objectType, objectId);
  }, [objectType, objectId]);

  const onClick = (action: ReactionAction) => {
    if (!loggedIn) {
      navigate(`/auth/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
      return;
    }
    void toggleReaction(objectType, objectId, action);
  };

  return (
    <div className="reactions" data-testid="reactions">
      {list.map((action) => {
        const s = all[reactionKey(objectType, objectId, action)];
        const on = s?.reacted ?? reacted?.[action] ?? false;
        const count = s ? s.count : action === 'watch_later' ? null : (counts?.[action as 'like' | 'favourite'] ?? 0);
        return (
          <button
            key={action}
            type="button"
            className="btn reaction"
            aria-pressed={on}
            disabled={pending || s?.pending}
            onClick={() => onClick(action)}
            data-testid={`reaction-${action}`}
          >
            {LABELS[action][on ? 1 : 0]}
            {count !== null && count !== undefined ? (
              <>
                <span className="reaction__count" data-testid={`reaction-${action}-count`}>{formatCount(count)}</span>
                {/* The number alone says nothing to a screen reader: "Like, 1 like". */}
                <span className="sr-only"> {nounFor(count, action === 'like' ? 'like' : 'favourite')}</span>
              </>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}
