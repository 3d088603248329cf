/**
 * Which thumbnails a gallery's photo has, decided in one place for the pipeline (which makes them) and the catalogue
 * (which hands them out).
 *
 * The public thumbnail (`variant = 'thumb'`, under `public/`, cached by shared caches for a day) is blurred while the
 * gallery is locked, except the gallery's cover, which stands for the gallery in every list. Those who may open the
 * gallery (its subscribers or buyers, its performer, admins) must not get the blurred picture, and the sharp one must
 * not be public: a blurred photo also gets a sharp thumbnail stored under `private/` (`variant = 'thumb_private'`,
 * a child of the original like the public one), served only through a signed URL of the photo
 * (server/access/access.service.ts `openProtectedFile`, the same check as the full photo).
 */

export const PRIVATE_THUMB_VARIANT = 'thumb_private';

/** True when the photo's public thumbnail is (or is to be) blurred. A photo outside a gallery is never blurred. */
export function publicThumbIsBlurred(photoId: string, gallery: { access: string; coverPhotoId: string | null } | null | undefined): boolean {
  return !!gallery && gallery.access !== 'free' && gallery.coverPhotoId !== photoId;
}
