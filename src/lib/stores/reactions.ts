import { map } from 'nanostores';
import type { EngagementObjectType, ReactionAction } from '../../../common/enums.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { toast } from './toast.js';
import { onRealtime, watchObject } from './realtime-events.js';
import { registerReset } from './reset.js';

/**
 * Reactions of the current user and the counts shown next to them, keyed `type:id:action`. The server's
 * answer is the truth: a toggle sets `reacted` and `count` from it; `reaction/count` events from the
 * object's realtime room keep counts current while the page is open.
 */

export interface ReactionState {
  reacted: boolean;
  /** Likes or favourites of the object; null for watch_later (no public count). */
  count: number | null;
  pending: boolean;
}

export const reactions = map<Record<string, ReactionState>>({});

export const reactionKey = (objectType: EngagementObjectType, objectId: string, action: ReactionAction) => `${objectType}:${objectId}:${action}`;

export function reactionState(objectType: EngagementObjectType, objectId: string, action: ReactionAction): ReactionState {
  return reactions.get()[reactionKey(objectType, objectId, action)] ?? { reacted: false, count: action === 'watch_later' ? null : 0, pending: false };
}

function patch(objectType: EngagementObjectType, objectId: string, action: ReactionAction, change: Partial<ReactionState>): void {
  const key = reactionKey(objectType, objectId, action);
  reactions.setKey(key, { ...reactionState(objectType, objectId, action), ...change });
}

/** Counts and flags as the page rendered them. */
export function seedReactions(
  objectType: EngagementObjectType,
  objectId: string,
  seed: Partial<Record<ReactionAction, { count?: number | null; reacted?: boolean }>>,
): void {
  for (const [action, value] of Object.entries(seed) as Array<[ReactionAction, { count?: number | null; reacted?: boolean }]>) {
    const current = reactionState(objectType, objectId, action);
    patch(objectType, objectId, action, {
      count: value.count !== undefined ? value.count : current.count,
      reacted: value.reacted ?? current.reacted,
    });
  }
}

/** Which of these objects the user already reacted to (`GET /reactions/search`). */
export async function loadMyReactions(objectType: EngagementObjectType, objectIds: string[]): Promise<void> {
  if (!objectIds.length) return;
  try {
    const { items } = await call(({ engagement }) => engagement.searchReactions({ objectType, objectIds, limit: 100 }));
    for (const r of items) patch(r.objectType, r.objectId, r.action, { reacted: true });
  } catch {
    // the buttons keep their rendered state
  }
}

/** Adds or removes the reaction; answers whether the user has it afterwards. */
export async function toggleReaction(objectType: EngagementObjectType, objectId: string, action: ReactionAction): Promise<boolean> {
  const before = reactionState(objectType, objectId, action);
  if (before.pending) return before.reacted;
  patch(objectType, objectId, action, { pending: true });
  try {
    const body = { objectType, objectId, action };
    const res = before.reacted ? await call(({ engagement }) => engagement.unreact(body)) : await call(({ engagement }) => engagement.react(body));
    patch(objectType, objectId, action, { reacted: res.reacted, count: res.count, pending: false });
    return res.reacted;
  } catch (err) {
    patch(objectType, objectId, action, { pending: false });
    toast.error(errorMessage(err, 'Error occured, please try again later'));
    return before.reacted;
  }
}

/** Live counts of one object; answers the unsubscribe function. */
export function subscribeReactionCounts(objectType: EngagementObjectType, objectId: string): () => void {
  const offs = [
    watchObject(objectType, objectId),
    onRealtime('reaction/count', (p) => {
      if (p.objectType === objectType && p.objectId === objectId) patch(objectType, objectId, p.action, { count: p.count });
    }),
  ];
  return () => offs.forEach((off) => off());
}

export function resetReactions(): void {
  reactions.set({});
}

registerReset('reactions', resetReactions);
