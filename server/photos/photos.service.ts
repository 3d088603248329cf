import { notFound } from '../http/errors.js';
import { canManage, loadAccessView, photoSubject, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { PRIVATE_THUMB_VARIANT, publicThumbIsBlurred } from '../media/photo-thumbs.js';
import { fullMedia, type CatalogueDeps } from '../catalogue/catalogue.service.js';
import { findGalleryByKey } from '../galleries/galleries.repository.js';
import type { PhotoItem, SignedMedia } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { galleryTerms, listPhotos, type PhotoFilters, type PhotoRow } from './photos.repository.js';
import { toPhotoItem } from './photos.mapper.js';

/** A photo outside any gallery is subscriber-only (server/access/access.service.ts). */
const LOOSE_PHOTO = { access: 'subscribers', price: 0 } as const;

async function toItems(deps: CatalogueDeps, viewer: Viewer, rows: PhotoRow[]): Promise<PhotoItem[]> {
  const terms = await galleryTerms(deps.db, rows.map((r) => r.galleryId));
  const subjectOf = (r: PhotoRow) => photoSubject(r, r.galleryId ? terms.get(r.galleryId)?.access ?? null : null);
  const [files, access] = await Promise.all([
    deps.display.files(deps.db, rows.flatMap((r) => [r.thumbnailFileId, r.fileId])),
    loadAccessView(deps.db, viewer, rows.map(subjectOf)),
  ]);
  const decisions = rows.map((r) => access.decide(subjectOf(r)));
  // Whoever may open a photo whose public thumbnail is blurred gets its sharp one, signed (server/media/photo-thumbs.ts).
  const sharpWanted = rows.filter((r, i) => decisions[i]!.open && r.fileId && publicThumbIsBlurred(r.id, r.galleryId ? terms.get(r.galleryId) : null));
  const sharpThumbs = await deps.display.variants(deps.db, sharpWanted.map((r) => r.fileId), PRIVATE_THUMB_VARIANT);
  return rows.map((r, i) => {
    const decision = decisions[i]!;
    const target = { objectType: 'photo', objectId: r.id } as const;
    const photo = decision.open && r.fileId ? fullMedia(deps.signer, viewer, target, files.get(r.fileId)) : null;
    let sharpThumb: SignedMedia | null = null;
    if (sharpWanted.includes(r)) {
      // A photo processed before sharp private thumbnails existed (or being processed again) shows its full file
      // instead: larger, but never the blurred picture to someone who paid for the sharp one.
      sharpThumb = fullMedia(deps.signer, viewer, target, sharpThumbs.get(r.fileId!)) ?? photo;
    }
    return toPhotoItem(r, {
      terms: (r.galleryId && terms.get(r.galleryId)) || LOOSE_PHOTO,
      thumbnail: r.thumbnailFileId ? files.get(r.thumbnailFileId) : undefined,
      sharpThumb,
      decision,
      photo,
    });
  });
}

/** `GET /user/assets/photos`: public photos of a gallery or of a performer. */
export async function searchPhotos(deps: CatalogueDeps, viewer: Viewer, filters: PhotoFilters): Promise<ListResult<PhotoItem>> {
  const { rows, total, nextCursor } = await listPhotos(deps.db, { ...filters, includeUnpublished: false }, audienceOf(viewer, deps.country));
  return { items: await toItems(deps, viewer, rows), total, nextCursor };
}

/** `GET /user/assets/gallery/{id}/photos`: a public gallery's photos; its performer and admins see every photo of it. */
export async function galleryPhotos(deps: CatalogueDeps, viewer: Viewer, key: string, filters: Omit<PhotoFilters, 'galleryId' | 'performerId'>): Promise<ListResult<PhotoItem>> {
  const audience = audienceOf(viewer, deps.country);
  const gallery = await findGalleryByKey(deps.db, key, audience);
  const manage = !!gallery && canManage(viewer, gallery.performerId);
  if (!gallery || (Number(gallery.visible) !== 1 && !manage)) throw notFound('Gallery');
  const { rows, total, nextCursor } = await listPhotos(deps.db, { ...filters, galleryId: gallery.id, includeUnpublished: manage }, audience);
  return { items: await toItems(deps, viewer, rows), total, nextCursor };
}
