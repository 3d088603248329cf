import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import { type Viewer, mayFind } from '../access/access.service.js';
import { categoriesOf } from '../categories/categories.repository.js';
import type { PerformerProfile } from '../../common/schemas/catalogue.js';
import type { PerformerViewer } from '../../common/schemas/member-shell.js';
import { findPerformerByKey, findPerformerForViewer, tagsOf, toCard } from './performers.repository.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { subscriptionOffer } from '../subscriptions/subscriptions.service.js';
import { messagingState } from '../messages/messages.service.js';
import { extend } from '../catalogue/item-mapper.js';
import type { CatalogueDeps } from '../catalogue/catalogue.service.js';

/**
 * `GET /performers/{id}`: an active, approved performer by id or username (the performer and admins also see an
 * inactive or unapproved one). A visitor from a country the performer blocks gets 404, like a missing performer.
 */
export async function getPerformerProfile(db: DbOrTrx, viewer: Viewer, key: string, country: string | null): Promise<PerformerProfile> {
  const a = audienceOf(viewer, country);
  const viewed = viewer ? await findPerformerForViewer(db, key, a, viewer.id) : undefined;
  const row = viewer ? viewed : await findPerformerByKey(db, key, a);
  if (!row || !mayFind(viewer, row.visible, row.id)) throw notFound('Performer');
  const { subscribed, following } = viewed?.facts ?? { subscribed: false, following: false };
  const [categories, tags] = await Promise.all([categoriesOf(db, 'performer', row.id), tagsOf(db, 'performer', row.id)]);
  return extend(toCard(row), {
    gender: row.gender,
    country: row.country,
    photoCount: row.photoCount,
    galleryCount: row.galleryCount,
    productCount: row.productCount,
    likeCount: row.likeCount,
    viewCount: row.viewCount,
    categories: categories.map((c) => ({ _id: c.id, name: c.name, slug: c.slug })),
    tags,
    createdAt: row.createdAt,
    isSubscribed: subscribed,
    isFollowing: following,
    followerCount: row.followerCount,
  });
}

/**
 * The signed-in visitor's own state on a performer's page (their follow, subscription, offers, whether they may
 * write; `GET /users/me/header?performer=`), found as `getPerformerProfile` finds the performer: null for a page
 * the visitor may not see.
 */
export async function getPerformerViewer(
  { db, display, country }: Pick<CatalogueDeps, 'db' | 'display' | 'country'>, viewer: NonNullable<Viewer>, key: string,
): Promise<PerformerViewer | null> {
  const row = await findPerformerForViewer(db, key, audienceOf(viewer, country), viewer.id);
  if (!row || !mayFind(viewer, row.visible, row.id)) return null;
  const self = viewer.id === row.id;
  // The row just read prices the offer and holds the messaging policy; its facts answer the rest.
  const { subscribed, following, conversation, promotionsRunning } = row.facts;
  const offer = await subscriptionOffer(db, row, viewer.id, { promotionsRunning, packages: display.sitePackages });
  const messaging = viewer.role === 'user' && !self ? await messagingState(db, viewer, row.id, { policy: row.messagePolicy, subscribed, conversation }) : null;
  return { performerId: row.id, self, following, followerCount: row.followerCount, subscribed, offer, messaging };
}

/** The performer directory's cards (also the home and search pages' performer lists): public performers only. */
export { searchPerformers, type PerformerQuery, type PerformerSort } from './performers.repository.js';
