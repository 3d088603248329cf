import { gallerySubject, loadAccessView, type AccessView, type Viewer } from '../access/access.service.js';
import { audienceOf, previewUrl } from '../catalogue/catalogue.repository.js';
import { foundItem, itemPage, type CatalogueDeps, type ItemList } from '../catalogue/catalogue.service.js';
import type { GalleryItem } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { findGalleryByKey, listPublicGalleries, type GalleryFilters, type GalleryRow } from './galleries.repository.js';
import { toGalleryItem } from './galleries.mapper.js';

async function toItems(deps: CatalogueDeps, viewer: Viewer, rows: GalleryRow[], given?: AccessView): Promise<GalleryItem[]> {
  const [performers, covers, access] = await Promise.all([
    deps.display.performerSummaries(deps.db, rows.map((r) => r.performerId)),
    deps.display.coverThumbnails(deps.db, rows.map((r) => r.coverPhotoId)),
    given ?? loadAccessView(deps.db, viewer, rows.map(gallerySubject)),
  ]);
  const files = await deps.display.files(deps.db, [...covers.values()]);
  return rows.map((r) => {
    const thumbId = r.coverPhotoId ? covers.get(r.coverPhotoId) : undefined;
    return toGalleryItem(r, {
      performer: performers.get(r.performerId),
      cover: previewUrl(thumbId ? files.get(thumbId) : undefined),
      decision: access.decide(gallerySubject(r)),
    });
  });
}

/** The public gallery list, in its two steps (see ItemList). */
export const galleryList: ItemList<GalleryFilters, GalleryRow, GalleryItem> = {
  rows: (deps, viewer, filters) => listPublicGalleries(deps.db, filters, audienceOf(viewer, deps.country)),
  items: toItems,
  subject: gallerySubject,
};

export async function searchGalleries(deps: CatalogueDeps, viewer: Viewer, filters: GalleryFilters): Promise<ListResult<GalleryItem>> {
  return itemPage(deps, viewer, galleryList, filters);
}

/** A gallery public to this visitor; its performer and admins also get it while not public. */
export async function getGallery(deps: CatalogueDeps, viewer: Viewer, key: string): Promise<GalleryItem> {
  return foundItem(deps, viewer, await findGalleryByKey(deps.db, key, audienceOf(viewer, deps.country)), 'Gallery', toItems);
}
