import type { DbOrTrx } from '../db/database.js';
import type { Actor } from './deps.js';
import * as repo from './studio.repository.js';

/** Own listings (the studio's tables): every state, newest first. */

/** A performer's own videos, galleries or posts as the studio shows them (an admin may name any performer). */
export async function listOwn<T>(
  db: DbOrTrx,
  actor: Actor,
  table: repo.OwnListTable,
  page: { limit: number; offset: number; performerId?: string },
  view: (db: DbOrTrx, id: string) => Promise<T>,
): Promise<{ items: T[]; total: number }> {
  const performerId = actor.role === 'admin' && page.performerId ? page.performerId : actor.id;
  const { ids, total } = await repo.listOwnIds(db, table, performerId, page);
  const items = await Promise.all(ids.map((id) => view(db, id)));
  return { items, total };
}
