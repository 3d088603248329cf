import type { AccessDecision } from '../access/access.service.js';
import { previewUrl, type MediaFile } from '../catalogue/catalogue.repository.js';
import type { Access } from '../db/schema.js';
import type { PhotoItem, SignedMedia } from '../../common/schemas/catalogue.js';
import type { PhotoRow } from './photos.repository.js';

export function toPhotoItem(
  r: PhotoRow,
  x: { terms: { access: Access; price: number }; thumbnail: MediaFile | undefined; sharpThumb: SignedMedia | null; decision: AccessDecision; photo: SignedMedia | null },
): PhotoItem {
  return {
    _id: r.id,
    galleryId: r.galleryId,
    performerId: r.performerId,
    title: r.title,
    position: r.position,
    access: x.terms.access,
    price: x.terms.access === 'sale' ? x.terms.price : 0,
    locked: !x.decision.open,
    // The public thumbnail is blurred while the photo is locked; those who may open it get the sharp one, signed.
    thumbnail: x.decision.open && x.sharpThumb ? x.sharpThumb.url : previewUrl(x.thumbnail),
    photo: x.decision.open ? x.photo : null,
    processingStatus: r.processingStatus,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
  };
}
