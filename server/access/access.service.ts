import type { DbOrTrx } from '../db/database.js';
import { findAttachmentFile } from '../messages/messages.repository.js';
import { findExportFile } from '../privacy/privacy.repository.js';
import { findConsentFile } from '../consent/consent.repository.js';
import type { Access, ObjectType } from '../db/schema.js';
import type { ProductType, Role } from '../../common/enums.js';
import type { MediaGrant } from '../media/signed-urls.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { findVerificationFile } from '../verification/verification.repository.js';
import { boughtMessageIds, heldAccess, findPhotoFile, findPostFile, findProductFile, findVideoFile } from './access.repository.js';

/**
 * THE access rules of the site (server/access/README.md). Every place that decides whether someone may open
 * an item's full media (lists, detail pages, signed media URLs, download links, and later the money features)
 * asks this module.
 *
 *   free item            → everyone, guests included
 *   subscriber-only item → a live subscription to the item's performer
 *   sale item            → a live entitlement (purchase) of the item
 *   any item             → its own performer, and admins
 *
 * A purchase opens the item whatever its access level (what was paid for stays open if the performer later
 * changes the access). Photos follow their gallery (entitlement on the gallery); a photo outside any gallery is
 * subscriber-only. A physical product has no protected file (always open); a digital product is a sale item. A
 * performer's post follows its own level (its pictures and video with it); a site post is free.
 */

export type Viewer = { id: string; role: Role } | null;

/** What an access decision is about: the object an entitlement names, its performer and its access level. */
export interface AccessSubject {
  objectType: Extract<ObjectType, 'video' | 'gallery' | 'photo' | 'product' | 'post'>;
  objectId: string;
  performerId: string;
  access: Access;
}

export type AccessReason = 'free' | 'owner' | 'admin' | 'subscription' | 'purchase';
export type AccessDecision =
  | { open: true; reason: AccessReason }
  | { open: false; reason: 'locked'; needs: 'subscription' | 'purchase' };

export interface AccessFacts {
  /** The viewer has a live subscription to the subject's performer. */
  subscribed: boolean;
  /** The viewer holds a live entitlement to the subject. */
  purchased: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Subjects of each kind of item.

export function videoSubject(v: { id: string; performerId: string; access: Access }): AccessSubject {
  return { objectType: 'video', objectId: v.id, performerId: v.performerId, access: v.access };
}

export function gallerySubject(g: { id: string; performerId: string; access: Access }): AccessSubject {
  return { objectType: 'gallery', objectId: g.id, performerId: g.performerId, access: g.access };
}

/** A photo is opened by whatever opens its gallery; outside a gallery it is subscriber-only. */
export function photoSubject(p: { id: string; performerId: string; galleryId: string | null }, galleryAccess: Access | null): AccessSubject {
  if (p.galleryId && galleryAccess) return { objectType: 'gallery', objectId: p.galleryId, performerId: p.performerId, access: galleryAccess };
  return { objectType: 'photo', objectId: p.id, performerId: p.performerId, access: 'subscribers' };
}

/** A performer's post opens like a video (its pictures and video follow it); a site post (no performer) is free. */
export function postSubject(p: { id: string; performerId: string | null; access: Access }): AccessSubject {
  return { objectType: 'post', objectId: p.id, performerId: p.performerId ?? '', access: p.performerId ? p.access : 'free' };
}

export function productSubject(p: { id: string; performerId: string; type: ProductType }): AccessSubject {
  return { objectType: 'product', objectId: p.id, performerId: p.performerId, access: p.type === 'digital' ? 'sale' : 'free' };
}

// ---------------------------------------------------------------------------------------------------------------
// Decisions.

/** The rule itself, on facts already loaded. */
export function decideAccess(viewer: Viewer, subject: AccessSubject, facts: AccessFacts): AccessDecision {
  if (viewer?.role === 'admin') return { open: true, reason: 'admin' };
  if (viewer && viewer.id === subject.performerId) return { open: true, reason: 'owner' };
  if (subject.access === 'free') return { open: true, reason: 'free' };
  if (facts.purchased) return { open: true, reason: 'purchase' };
  if (subject.access === 'subscribers') return facts.subscribed ? { open: true, reason: 'subscription' } : { open: false, reason: 'locked', needs: 'subscription' };
  return { open: false, reason: 'locked', needs: 'purchase' };
}

/** Whether the viewer is the item's performer or an admin: they also see drafts, scheduled and processing items. */
export function canManage(viewer: Viewer, performerId: string): boolean {
  return !!viewer && (viewer.role === 'admin' || viewer.id === performerId);
}

/**
 * Whether a viewer gets an item looked up by its id or slug: it is public to them now (`visible`, 0/1 or a boolean
 * by engine) or they manage it; the others get 404, never a sign that it exists.
 */
export function mayFind(viewer: Viewer, visible: unknown, performerId: string): boolean {
  return Number(visible) === 1 || canManage(viewer, performerId);
}

/**
 * Whether some item may be open to `viewer` that is locked to a guest, following `decideAccess` case by case: an
 * admin, a performer (their own items), a live subscription, a live purchase. False means every decision for this
 * viewer is a guest's, so what a page shows every visitor alike (the member shell) is already right for them and its
 * lists need not ask again. `holdsAny`: whether they hold a live subscription or purchase (`holdsAnyAccessQuery`,
 * read with the member header's other facts).
 */
export function unlocksMoreThanGuests(viewer: Viewer, holdsAny: boolean): boolean {
  if (!viewer) return false;
  if (viewer.role === 'admin' || viewer.role === 'performer') return true;
  return holdsAny;
}

/** Access facts for one viewer and a batch of subjects (a page of a list), loaded in at most two queries per object type. */
export class AccessView {
  constructor(
    readonly viewer: Viewer,
    private readonly subscribed: Set<string>,
    private readonly purchased: Set<string>,
  ) {}

  isSubscribedTo(performerId: string): boolean {
    return this.subscribed.has(performerId);
  }

  hasPurchased(objectType: ObjectType, objectId: string): boolean {
    return this.purchased.has(`${objectType}:${objectId}`);
  }

  decide(subject: AccessSubject): AccessDecision {
    return decideAccess(this.viewer, subject, {
      subscribed: this.isSubscribedTo(subject.performerId),
      purchased: this.hasPurchased(subject.objectType, subject.objectId),
    });
  }
}

/**
 * Loads what `viewer` holds for these subjects. Guests and admins need no query; nor do free items or the
 * viewer's own items.
 */
export async function loadAccessView(db: DbOrTrx, viewer: Viewer, subjects: readonly AccessSubject[], now = new Date()): Promise<AccessView> {
  if (!viewer || viewer.role === 'admin') return new AccessView(viewer, new Set(), new Set());
  const gated = subjects.filter((s) => s.access !== 'free' && s.performerId !== viewer.id);
  const held = await heldAccess(db, viewer.id, { performerIds: gated.filter((s) => s.access === 'subscribers').map((s) => s.performerId), objects: gated }, now.toISOString());
  return new AccessView(viewer, held.subscribed, held.purchased);
}

/** The columns `heldColumns` adds to a row (0/1 on SQLite, booleans on PostgreSQL). */
export interface HeldColumns {
  heldSubscription: unknown;
  heldPurchase: unknown;
}

/**
 * The access view of a page whose rows carry what the viewer holds of each (`heldColumns`, access.repository.ts), read
 * in the page's own statement: the same facts loadAccessView reads in a statement of its own.
 */
export function accessViewOfRows<R extends HeldColumns>(viewer: Viewer, rows: readonly R[], subject: (row: R) => AccessSubject): AccessView {
  const subscribed = new Set<string>();
  const purchased = new Set<string>();
  for (const r of rows) {
    const s = subject(r);
    // 0/1 on SQLite, a boolean on PostgreSQL.
    if (Number(r.heldSubscription) === 1) subscribed.add(s.performerId);
    if (Number(r.heldPurchase) === 1) purchased.add(`${s.objectType}:${s.objectId}`);
  }
  return new AccessView(viewer, subscribed, purchased);
}

/** One decision (detail pages, download links, media requests). */
export async function checkAccess(db: DbOrTrx, viewer: Viewer, subject: AccessSubject, now = new Date()): Promise<AccessDecision> {
  return (await loadAccessView(db, viewer, [subject], now)).decide(subject);
}

/** Whether the viewer has a live subscription to the performer (false for guests). */
export async function isSubscribed(db: DbOrTrx, viewer: Viewer, performerId: string, now = new Date()): Promise<boolean> {
  if (!viewer) return false;
  return (await heldAccess(db, viewer.id, { performerIds: [performerId], objects: [] }, now.toISOString())).subscribed.has(performerId);
}

// ---------------------------------------------------------------------------------------------------------------
// Paid messages (server/messages/README.md, "Paid messages").

/** What decides whether a message's files open: who sent it, to whom, and its price (0: free). */
export interface MessageSubject {
  id: string;
  senderId: string;
  recipientId: string;
  price: number;
}

/**
 * For one viewer (a participant or an admin; the caller has already checked that they may see the conversation), which
 * of these messages have their files open, and which were bought by their recipient. A free message opens; a priced one
 * opens for its sender and admins always, and for its recipient once they bought it (a live entitlement of object
 * type 'message'). One query for the page.
 */
export async function openMessageIds(db: DbOrTrx, viewer: Viewer, messages: readonly MessageSubject[]): Promise<{ open: Set<string>; bought: Set<string> }> {
  const priced = messages.filter((m) => Number(m.price) > 0);
  const bought = await boughtMessageIds(db, priced);
  const open = new Set<string>();
  for (const m of messages) {
    if (Number(m.price) <= 0 || viewer?.role === 'admin' || viewer?.id === m.senderId || (viewer?.id === m.recipientId && bought.has(m.id))) open.add(m.id);
  }
  return { open, bought };
}

// ---------------------------------------------------------------------------------------------------------------
// Protected files, checked again on every request of a signed URL.

export type ProtectedFileCheck =
  | { ok: true; storageKey: string; fileName: string | null; download: boolean }
  | { ok: false; status: 403 | 404; code: string; message: string };

/**
 * May `viewer`, from `country`, read the file a signed URL names, right now? The file must still be the item's full
 * file, the item must be public to them (its performer does not block their country), or the viewer its performer
 * or an admin, and the access rules must open it.
 */
export async function openProtectedFile(
  db: DbOrTrx,
  viewer: Viewer,
  grant: Pick<MediaGrant, 'objectType' | 'objectId' | 'fileId'>,
  country: string | null,
  now = new Date(),
): Promise<ProtectedFileCheck> {
  const at = audienceOf(viewer, country, now.toISOString());
  const gone: ProtectedFileCheck = { ok: false, status: 404, code: 'NOT_FOUND', message: 'File not found' };
  if (grant.objectType === 'verification') {
    // Identity documents open for admins only: never their performer, whatever URL they hold (server/verification/).
    if (viewer?.role !== 'admin') return gone;
    const f = await findVerificationFile(db, grant.objectId, grant.fileId);
    if (!f || f.fileStatus !== 'ready') return gone;
    return { ok: true, storageKey: f.storageKey, fileName: f.originalName, download: false };
  }
  if (grant.objectType === 'export') {
    // A data export opens for its owner only: not another user, not an admin (server/privacy/README.md), and only
    // while it is ready (an expired or deleted export's URL finds nothing).
    const x = await findExportFile(db, grant.objectId, grant.fileId);
    if (!x || !viewer || viewer.id !== x.userId || x.status !== 'ready' || !x.expiresAt || x.expiresAt <= now.toISOString() || x.fileStatus !== 'ready') return gone;
    return { ok: true, storageKey: x.storageKey, fileName: x.originalName, download: true };
  }
  if (grant.objectType === 'message') {
    // A message's file opens for the conversation's two participants and admins, nobody else, whatever else they hold.
    const m = await findAttachmentFile(db, grant.objectId, grant.fileId);
    const party = viewer && (viewer.role === 'admin' || viewer.id === m?.fanId || viewer.id === m?.performerId);
    if (!m || !party || !m.storageKey || m.fileStatus !== 'ready') return gone;
    // A priced message's files stay shut to its recipient until bought (a refund shuts them again).
    if (!(await openMessageIds(db, viewer, [m])).open.has(m.id)) return { ok: false, status: 403, code: 'LOCKED', message: 'Unlock this message to open its files' };
    return { ok: true, storageKey: m.storageKey, fileName: m.originalName, download: false };
  }
  if (grant.objectType === 'consent') {
    // A co-performer's release form or identity document (server/consent/): admins only, whoever else asks.
    if (viewer?.role !== 'admin') return gone;
    const f = await findConsentFile(db, grant.objectId, grant.fileId);
    if (!f || f.fileStatus !== 'ready') return gone;
    return { ok: true, storageKey: f.storageKey, fileName: f.originalName, download: false };
  }
  let subject: AccessSubject;
  let row: { visible: unknown; storageKey: string | null; fileStatus: string | null; originalName: string | null; markedKey?: string | null };
  if (grant.objectType === 'video') {
    const v = await findVideoFile(db, grant.objectId, grant.fileId, at);
    if (!v) return gone;
    subject = videoSubject(v);
    row = v;
  } else if (grant.objectType === 'photo') {
    const p = await findPhotoFile(db, grant.objectId, grant.fileId, at);
    if (!p) return gone;
    subject = photoSubject(p, p.galleryAccess);
    row = p;
  } else if (grant.objectType === 'post') {
    const p = await findPostFile(db, grant.objectId, grant.fileId, at);
    if (!p) return gone;
    subject = postSubject(p);
    row = p;
  } else {
    const p = await findProductFile(db, grant.objectId, grant.fileId, at);
    if (!p || p.type !== 'digital') return gone;
    subject = productSubject(p);
    row = p;
  }
  // 0/1 on SQLite, a boolean on PostgreSQL.
  const visible = Number(row.visible) === 1;
  if (!visible && !(subject.performerId && canManage(viewer, subject.performerId))) return gone;
  if (!row.storageKey || row.fileStatus !== 'ready') return gone;
  const decision = await checkAccess(db, viewer, subject, now);
  if (!decision.open) {
    return { ok: false, status: 403, code: 'LOCKED', message: decision.needs === 'subscription' ? 'Subscribe to open this file' : 'Buy this item to open this file' };
  }
  // The watermarked copy when there is one (server/media/watermark/); the original upload stays clean in storage.
  return { ok: true, storageKey: row.markedKey ?? row.storageKey, fileName: row.originalName, download: grant.objectType === 'product' };
}
