import type { DbOrTrx } from '../db/database.js';
import { publicMediaUrl } from '../media/storage.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { UserSummary } from '../../common/schemas/money.js';

export { loadPerformerSummaries } from '../catalogue/catalogue.repository.js';

/** Users by id as shown on subscriber lists, orders and earnings. */
export async function loadUserSummaries(db: DbOrTrx, ids: ReadonlyArray<string | null | undefined>): Promise<Map<string, UserSummary>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'username', 'name', 'avatarPath']).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.id, { _id: r.id, username: r.username, name: r.name, avatar: publicMediaUrl(r.avatarPath) ?? DEFAULT_AVATAR }]));
}
