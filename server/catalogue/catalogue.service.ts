import type { AppContext } from '../context.js';
import type { DbOrTrx } from '../db/database.js';
import { mayFind, type AccessSubject, type AccessView, type Viewer } from '../access/access.service.js';
import { notFound } from '../http/errors.js';
import type { ListResult } from '../../common/schemas/http.js';
import { mediaSigner, type MediaUrlSigner, type ProtectedObjectType } from '../media/signed-urls.js';
import type { SignedMedia } from '../../common/schemas/catalogue.js';
import type { MediaFile } from './catalogue.repository.js';
import type { DisplayReads } from './display-cache.js';

/** What the catalogue services need: the database, the media URL signer, the visitor's country and the shared card reads. */
export interface CatalogueDeps {
  db: DbOrTrx;
  signer: MediaUrlSigner;
  /** The visitor's country (null: unknown): content of performers who block it does not exist for this visitor. */
  country: string | null;
  /** What cards show beside their rows (performer names, files), shared across requests (./display-cache.ts). */
  display: DisplayReads;
}

export function catalogueDeps(ctx: Pick<AppContext, 'db' | 'config' | 'display'>, country: string | null): CatalogueDeps {
  return { db: ctx.db, signer: mediaSigner(ctx.config), country, display: ctx.display };
}

/**
 * Signed URLs of full files for one viewer. Call only for items the access rules opened for that viewer: the
 * URL is bound to the viewer and checked again when fetched, but a locked item's file must never be named.
 */
export function fullMedia(
  signer: MediaUrlSigner,
  viewer: Viewer,
  target: { objectType: ProtectedObjectType; objectId: string },
  file: MediaFile | undefined,
): SignedMedia | null {
  if (!file || file.status !== 'ready') return null;
  const { url, expiresAt } = signer.sign({ ...target, fileId: file.id }, viewer?.id ?? null);
  return { url, expiresAt, mime: file.mime, size: file.size, width: file.width, height: file.height, duration: file.duration };
}

/**
 * A catalogue domain's rows made into what one viewer gets of them (performer cards, previews, `locked`, signed URLs).
 * `access`: what the viewer holds, when already read for these rows with others (the feed); else read here.
 */
export type ToItems<R, I> = (deps: CatalogueDeps, viewer: Viewer, rows: R[], access?: AccessView) => Promise<I[]>;

/** A page of a public list's rows: the rows, the total and the next page's cursor. */
export interface RowPage<R> {
  rows: R[];
  total: number;
  nextCursor: string | null;
  /** What the viewer holds of these rows, when the page's statement read it with them (accessViewOfRows). */
  access?: AccessView;
}

/**
 * A public list read in two steps: the page of its rows, then the rows kept made into the viewer's items. The feed
 * (server/follows/feed.service.ts) reads three lists and makes items of only the rows it shows.
 */
export interface ItemList<F, R, I> {
  rows(deps: CatalogueDeps, viewer: Viewer, filters: F): Promise<RowPage<R>>;
  items: ToItems<R, I>;
  /** What access decides a row by: one access view can then serve the rows of several lists. */
  subject(row: R): AccessSubject;
}

/** A page of a public list, its rows made into the viewer's items. */
export async function itemPage<F, R, I>(deps: CatalogueDeps, viewer: Viewer, list: ItemList<F, R, I>, filters: F): Promise<ListResult<I>> {
  const page = await list.rows(deps, viewer, filters);
  return { items: await list.items(deps, viewer, page.rows, page.access), total: page.total, nextCursor: page.nextCursor };
}

/** An item looked up by id or slug, when the viewer may find it (`mayFind`: public to them now, or theirs to manage); else 404 `what`. */
export async function foundItem<R extends { visible: unknown; performerId: string }, I>(deps: CatalogueDeps, viewer: Viewer, row: R | undefined, what: string, toItems: ToItems<R, I>): Promise<I> {
  if (!row || !mayFind(viewer, row.visible, row.performerId)) throw notFound(what);
  const [item] = await toItems(deps, viewer, [row]);
  return item!;
}
