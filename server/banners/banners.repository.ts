import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import { publicMediaUrl } from '../media/storage.js';
import type { Banner } from '../../common/schemas/site.js';

export async function searchBanners(
  db: DbOrTrx,
  q: { position?: string; limit: number; offset: number },
): Promise<{ items: Banner[]; total: number }> {
  let base = db.selectFrom('banners').where('banners.status', '=', 'active');
  if (q.position) base = base.where('banners.position', '=', q.position);
  const { rows, total } = await offsetPage(base, q, (qb) =>
    qb
      .leftJoin('files', 'files.id', 'banners.imageFileId')
      .select(['banners.id', 'banners.title', 'banners.description', 'banners.link', 'banners.position', 'files.storageKey'])
      .orderBy('banners.ordering')
      .orderBy('banners.id')
  );
  return {
    items: rows.map((r) => ({
      _id: r.id,
      title: r.title,
      description: r.description,
      link: r.link,
      position: r.position,
      imageUrl: publicMediaUrl(r.storageKey),
    })),
    total,
  };
}
