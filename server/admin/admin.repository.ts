import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import { nowIso } from '../db/ids.js';
import type { Database, PayoutsTable } from '../db/schema.js';
import { publicMediaUrl } from '../media/storage.js';
import type { ContentType } from '../../common/enums.js';
import { itemsOfOrders, listOrders, type OrderFilters } from '../orders/orders.repository.js';
import { listAudit, type AuditFilters } from '../audit/audit.repository.js';
import { countries } from 'countries-list';
import { DAY_MS } from '../../common/time.js';
import { REPORT_OVERDUE_DAYS } from '../../common/reports.js';
import { reportCounts } from '../reports/reports.repository.js';

/**
 * The SQL of the admin console: its lists and reports, and the writes of the rows it edits, which the routes run in
 * their audited transaction (`adminTx` in admin.http.ts). Writes another domain also makes live in that domain's
 * repository (a performer's approval, a country block, a payout's earnings).
 */

const like = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const likeExpr = (s: string) => sql<string>`${like(s)} escape '\\'`;
const count = sql<number | string>`count(*)`;

export interface Page {
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Site content: banners, categories, coupons, packages, country blocks.

export async function listBanners(db: DbOrTrx, p: Page) {
  const base = db.selectFrom('banners');
  const { rows, total } = await offsetPage(base, p, (qb) =>
    qb
      .leftJoin('files', 'files.id', 'banners.imageFileId')
      .selectAll('banners')
      .select('files.storageKey')
      .orderBy('banners.position')
      .orderBy('banners.ordering')
      .orderBy('banners.id')
  );
  return { items: rows.map(bannerView), total };
}

export async function findBanner(db: DbOrTrx, id: string) {
  const row = await db.selectFrom('banners').leftJoin('files', 'files.id', 'banners.imageFileId').selectAll('banners').select('files.storageKey').where('banners.id', '=', id).executeTakeFirst();
  return row ? bannerView(row) : undefined;
}

function bannerView(r: { id: string; title: string; description: string | null; link: string | null; position: string; ordering: number; status: string; imageFileId: string | null; storageKey: string | null; createdAt: string; updatedAt: string }) {
  return {
    _id: r.id,
    title: r.title,
    description: r.description,
    link: r.link,
    position: r.position,
    ordering: r.ordering,
    status: r.status as 'active' | 'inactive',
    imageUrl: publicMediaUrl(r.storageKey),
    imageFileId: r.imageFileId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
export type BannerView = ReturnType<typeof bannerView>;

export async function listCategories(db: DbOrTrx, p: Page & { group?: string }) {
  let base = db.selectFrom('categories');
  if (p.group) base = base.where('group', '=', p.group as never);
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll().orderBy('group').orderBy('ordering').orderBy('id'));
  return { items: rows.map(categoryView), total };
}
export function categoryView(r: { id: string; name: string; slug: string; group: string; description: string | null; ordering: number; status: string; createdAt: string; updatedAt: string }) {
  return { _id: r.id, name: r.name, slug: r.slug, group: r.group, description: r.description, ordering: r.ordering, status: r.status as 'active' | 'inactive', createdAt: r.createdAt, updatedAt: r.updatedAt };
}

export async function listCoupons(db: DbOrTrx, p: Page & { q?: string }) {
  let base = db.selectFrom('coupons');
  if (p.q) base = base.where((eb) => eb.or([eb(sql`lower(code)`, 'like', likeExpr(p.q!)), eb(sql`lower(name)`, 'like', likeExpr(p.q!))]));
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'));
  return { items: rows.map(couponAdminView), total };
}
export function couponAdminView(r: { id: string; name: string; code: string; valueBps: number; expiresAt: string | null; maxUses: number; usedCount: number; status: string; createdAt: string; updatedAt: string }) {
  return { _id: r.id, name: r.name, code: r.code, valueBps: r.valueBps, expiresAt: r.expiresAt, maxUses: r.maxUses, usedCount: r.usedCount, status: r.status as 'active' | 'inactive', createdAt: r.createdAt, updatedAt: r.updatedAt };
}

export async function listPackages(db: DbOrTrx, p: Page) {
  const base = db.selectFrom('subscriptionPackages');
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll().orderBy('ordering').orderBy('id'));
  return { items: rows.map(packageView), total };
}
export function packageView(r: { id: string; name: string; description: string | null; type: string; price: number; durationDays: number; ordering: number; status: string; createdAt: string; updatedAt: string }) {
  return { _id: r.id, name: r.name, description: r.description, type: r.type, price: r.price, durationDays: r.durationDays, ordering: r.ordering, status: r.status as 'active' | 'inactive', createdAt: r.createdAt, updatedAt: r.updatedAt };
}

export async function listCountryBlocks(db: DbOrTrx) {
  const rows = await db.selectFrom('countryBlocks').selectAll().orderBy('countryCode').execute();
  return { items: rows.map((r) => ({ countryCode: r.countryCode, createdAt: r.createdAt })), total: rows.length };
}

/** The site content the console creates, changes and deletes row by row (server/admin/site.routes.ts). */
export type SiteTable = 'banners' | 'categories' | 'coupons' | 'subscriptionPackages';
type SiteRow = { id: string; updatedAt: string };
const siteRows = (db: DbOrTrx) => db as unknown as Kysely<Record<string, SiteRow>>;

export async function insertSiteRow<T extends SiteTable>(db: DbOrTrx, table: T, row: Insertable<Database[T]>): Promise<void> {
  await siteRows(db).insertInto(table as string).values(row as unknown as SiteRow).execute();
}

/** Changes one row, stamping updated_at; the row as it now is, or undefined when there is none. */
export async function updateSiteRow<T extends SiteTable>(db: DbOrTrx, table: T, id: string, changes: Updateable<Database[T]>): Promise<Selectable<Database[T]> | undefined> {
  const row = await siteRows(db).updateTable(table as string).set({ ...(changes as unknown as Partial<SiteRow>), updatedAt: nowIso() }).where('id', '=', id).returningAll().executeTakeFirst();
  return row as Selectable<Database[T]> | undefined;
}

/** Deletes one row; the row as it was, or undefined when there was none. */
export async function deleteSiteRow<T extends SiteTable>(db: DbOrTrx, table: T, id: string): Promise<Selectable<Database[T]> | undefined> {
  const row = await siteRows(db).deleteFrom(table as string).where('id', '=', id).returningAll().executeTakeFirst();
  return row as Selectable<Database[T]> | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Moderation.

export async function listPerformers(db: DbOrTrx, p: Page & { q?: string; status?: string; approved?: '0' | '1' }) {
  let base = db.selectFrom('performers').innerJoin('users', 'users.id', 'performers.id');
  if (p.q) {
    base = base.where((eb) =>
      eb.or([eb(sql`lower(performers.display_name)`, 'like', likeExpr(p.q!)), eb('performers.username', 'like', likeExpr(p.q!)), eb('users.email', 'like', likeExpr(p.q!))]),
    );
  }
  if (p.status) base = base.where('performers.status', '=', p.status as never);
  if (p.approved) base = base.where('performers.approved', '=', Number(p.approved));
  const { rows, total } = await offsetPage(base, p, (qb) =>
    qb
      .select([
        'performers.id', 'performers.username', 'performers.displayName', 'performers.status', 'performers.approved', 'performers.commissionBps',
        'performers.subscriberCount', 'performers.videoCount', 'performers.createdAt', 'users.email', 'users.status as accountStatus',
      ])
      .orderBy('performers.createdAt', 'desc')
      .orderBy('performers.id', 'desc'),
  );
  return {
    items: rows.map((r) => ({
      _id: r.id, username: r.username, name: r.displayName, email: r.email, status: r.status, accountStatus: r.accountStatus, approved: r.approved === 1,
      commissionBps: r.commissionBps, subscriberCount: r.subscriberCount, videoCount: r.videoCount, createdAt: r.createdAt,
    })),
    total,
  };
}

const contentTables = { video: 'videos', gallery: 'galleries', product: 'products', post: 'posts' } as const;
const titleColumn = { video: 'title', gallery: 'title', product: 'name', post: 'title' } as const;

/** Revenue is what the site kept of successful payments: their amounts less what partial refunds gave back. */
const keptSum = () => sql<number | string | null>`sum(payments.amount - payments.refunded_amount)`;

/** Sets the status of a video, gallery, product, post or photo (a takedown hides one photo); the status it had, or undefined when there is no such item. */
export async function setContentStatus(db: DbOrTrx, type: ContentType | 'photo', id: string, status: string): Promise<string | undefined> {
  const t = db as unknown as Kysely<Record<string, { id: string; status: string; updatedAt: string }>>;
  const table = type === 'photo' ? 'photos' : contentTables[type];
  const before = await t.selectFrom(table).select('status').where('id', '=', id).executeTakeFirst();
  if (before) await t.updateTable(table).set({ status, updatedAt: nowIso() }).where('id', '=', id).execute();
  return before?.status;
}

export async function listContent(db: DbOrTrx, p: Page & { type: ContentType; q?: string; status?: string }) {
  const table = contentTables[p.type];
  const title = titleColumn[p.type];
  const anyDb = db as unknown as Kysely<Record<string, { id: string; title: string; status: string; performerId: string | null; createdAt: string }>>;
  let base = anyDb.selectFrom(`${table} as c` as 'c');
  if (p.q) base = base.where(sql`lower(c.${sql.ref(title)})`, 'like', likeExpr(p.q));
  if (p.status) base = base.where(sql.ref('c.status'), '=', p.status);
  const { rows, total } = await offsetPage(base, p, (qb) =>
    qb
      .select([sql<string>`c.id`.as('id'), sql<string>`c.${sql.ref(title)}`.as('title'), sql<string>`c.status`.as('status'), sql<string | null>`c.performer_id`.as('performerId'), sql<string>`c.created_at`.as('createdAt')])
      .orderBy(sql`c.created_at`, 'desc')
      .orderBy(sql`c.id`, 'desc')
  );
  const refs = await describeRefs(db, rows.map((r) => ({ type: 'performer', id: r.performerId })));
  return {
    items: rows.map((r) => ({ _id: r.id, type: p.type, title: r.title, status: r.status, performerId: r.performerId, performer: personOf(refs, 'performer', r.performerId), createdAt: r.createdAt })),
    total,
  };
}

export async function listAllComments(db: DbOrTrx, p: Page & { q?: string; objectType?: string }) {
  let base = db.selectFrom('comments').innerJoin('users', 'users.id', 'comments.userId');
  if (p.q) base = base.where(sql`lower(comments.content)`, 'like', likeExpr(p.q));
  if (p.objectType) base = base.where('comments.objectType', '=', p.objectType as never);
  const { rows, total } = await offsetPage(base, p, (qb) =>
    qb
      .select(['comments.id', 'comments.objectType', 'comments.objectId', 'comments.content', 'comments.status', 'comments.createdAt', 'users.id as userId', 'users.username', 'users.name'])
      .orderBy('comments.createdAt', 'desc')
      .orderBy('comments.id', 'desc')
  );
  const refs = await describeRefs(db, rows.map((r) => ({ type: r.objectType, id: r.objectId })));
  return {
    items: rows.map((r) => ({
      _id: r.id, objectType: r.objectType, objectId: r.objectId, object: itemOf(refs, r.objectType, r.objectId)!, content: r.content, status: r.status,
      user: { _id: r.userId, username: r.username, name: r.name || r.username }, createdAt: r.createdAt,
    })),
    total,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Money.

export interface PaymentSearch extends Page {
  q?: string;
  status?: string;
  type?: string;
  gateway?: string;
  userId?: string;
  performerId?: string;
  from?: string;
  to?: string;
}

export async function searchPayments(db: DbOrTrx, f: PaymentSearch) {
  let base = db.selectFrom('payments').innerJoin('users', 'users.id', 'payments.userId');
  if (f.q) {
    const q = f.q;
    base = base.where((eb) => eb.or([eb('payments.id', '=', q), eb('payments.gatewayRef', '=', q), eb('payments.gatewayIntentRef', '=', q), eb('users.email', 'like', likeExpr(q)), eb('users.username', 'like', likeExpr(q))]));
  }
  if (f.status) base = base.where('payments.status', '=', f.status as never);
  if (f.type) base = base.where('payments.type', '=', f.type as never);
  if (f.gateway) base = base.where('payments.gateway', '=', f.gateway);
  if (f.userId) base = base.where('payments.userId', '=', f.userId);
  if (f.performerId) base = base.where('payments.performerId', '=', f.performerId);
  if (f.from) base = base.where('payments.createdAt', '>=', new Date(f.from).toISOString());
  if (f.to) base = base.where('payments.createdAt', '<', new Date(f.to).toISOString());
  const [rows, n, sum] = await Promise.all([
    base
      .select([
        'payments.id', 'payments.type', 'payments.status', 'payments.gateway', 'payments.gatewayRef', 'payments.amount', 'payments.originalPrice', 'payments.discount', 'payments.refundedAmount',
        'payments.currency', 'payments.performerId', 'payments.couponId', 'payments.paidAt', 'payments.createdAt', 'users.id as userId', 'users.username', 'users.email',
        'users.name', 'payments.targetId',
      ])
      .orderBy('payments.createdAt', 'desc')
      .orderBy('payments.id', 'desc')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select(count.as('n')).executeTakeFirst(),
    base.where('payments.status', '=', 'success').select(keptSum().as('s')).executeTakeFirst(),
  ]);
  // What was paid for, by name: the video, gallery or post bought, the products of an order (a subscription's item is
  // its performer).
  const productLines = rows.length
    ? await db.selectFrom('paymentItems').select(['paymentId', 'objectId']).where('paymentId', 'in', rows.map((r) => r.id)).where('objectType', '=', 'product').orderBy('id').execute()
    : [];
  const refs = await describeRefs(db, [
    ...rows.map((r) => ({ type: 'performer', id: r.performerId })),
    ...rows.map((r) => ({ type: PAYMENT_ITEM_TYPE[r.type] ?? '', id: PAYMENT_ITEM_TYPE[r.type] ? r.targetId : null })),
    ...productLines.map((l) => ({ type: 'product', id: l.objectId })),
  ]);
  return {
    items: rows.map((r) => {
      const itemType = PAYMENT_ITEM_TYPE[r.type];
      const items = itemType ? [itemOf(refs, itemType, r.targetId)!].filter(Boolean) : productLines.filter((l) => l.paymentId === r.id).map((l) => itemOf(refs, 'product', l.objectId)!);
      return {
        _id: r.id, type: r.type, status: r.status, gateway: r.gateway, gatewayRef: r.gatewayRef, amount: r.amount, originalPrice: r.originalPrice, discount: r.discount, refundedAmount: r.refundedAmount,
        currency: r.currency, performerId: r.performerId, couponId: r.couponId, paidAt: r.paidAt, createdAt: r.createdAt,
        user: { _id: r.userId, username: r.username, email: r.email, name: r.name || r.username },
        performer: personOf(refs, 'performer', r.performerId),
        items,
      };
    }),
    total: Number(n?.n ?? 0),
    successAmount: Number(sum?.s ?? 0),
  };
}

/** Earnings summed per performer: everything earned, what is already paid out and what is still owed. */
export async function earningsByPerformer(db: DbOrTrx, p: Page & { q?: string; unpaidOnly?: boolean }) {
  // Owed = unpaid and real: sandbox earnings (test money) are listed apart and never owed.
  const unpaid = sql<number | string | null>`sum(case when earnings.is_paid = 0 and earnings.test_money = 0 then earnings.net else 0 end)`;
  const paid = sql<number | string | null>`sum(case when earnings.is_paid = 1 then earnings.net else 0 end)`;
  const test = sql<number | string | null>`sum(case when earnings.test_money = 1 then earnings.net else 0 end)`;
  // Claimed by an open payout request: owed, and paid through the request queue rather than "mark paid".
  const requested = sql<number | string | null>`sum(case when earnings.is_paid = 0 and earnings.test_money = 0 and earnings.payout_id is not null then earnings.net else 0 end)`;
  let base = db.selectFrom('earnings').innerJoin('performers', 'performers.id', 'earnings.performerId');
  if (p.q) base = base.where((eb) => eb.or([eb('performers.username', 'like', likeExpr(p.q!)), eb(sql`lower(performers.display_name)`, 'like', likeExpr(p.q!))]));
  let grouped = base
    .select([
      'performers.id', 'performers.username', 'performers.displayName',
      sql<number | string | null>`sum(earnings.gross)`.as('gross'), sql<number | string | null>`sum(earnings.commission)`.as('commission'),
      sql<number | string | null>`sum(earnings.net)`.as('net'), unpaid.as('unpaidNet'), paid.as('paidNet'), requested.as('requestedNet'), test.as('testNet'), count.as('count'),
    ])
    .groupBy(['performers.id', 'performers.username', 'performers.displayName']);
  if (p.unpaidOnly) grouped = grouped.having(unpaid, '!=', 0);
  const all = db.selectFrom(grouped.as('g')).select(sql<number | string>`count(*)`.as('n'));
  const [rows, n] = await Promise.all([grouped.orderBy('unpaidNet', 'desc').orderBy('performers.id').limit(p.limit).offset(p.offset).execute(), all.executeTakeFirst()]);
  return {
    items: rows.map((r) => ({
      performerId: r.id, username: r.username, name: r.displayName, gross: Number(r.gross ?? 0), commission: Number(r.commission ?? 0), net: Number(r.net ?? 0),
      unpaidNet: Number(r.unpaidNet ?? 0), paidNet: Number(r.paidNet ?? 0), requestedNet: Number(r.requestedNet ?? 0), testNet: Number(r.testNet ?? 0), count: Number(r.count),
    })),
    total: Number(n?.n ?? 0),
  };
}

export async function earningRows(db: DbOrTrx, p: Page & { performerId: string; paid?: '0' | '1' }) {
  let base = db.selectFrom('earnings').where('performerId', '=', p.performerId);
  if (p.paid) base = base.where('isPaid', '=', Number(p.paid));
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'));
  return {
    items: rows.map((r) => ({
      _id: r.id, paymentId: r.paymentId, performerId: r.performerId, userId: r.userId, sourceType: r.sourceType, entry: r.entry, gross: r.gross, commission: r.commission, net: r.net,
      commissionBps: r.commissionBps, isPaid: r.isPaid === 1, test: r.testMoney === 1, paidAt: r.paidAt, payoutId: r.payoutId, createdAt: r.createdAt,
    })),
    total,
  };
}

/** Payouts made (paid), newest first: the direct ones and the requests an admin paid. */
export async function listPayouts(db: DbOrTrx, p: Page & { performerId?: string }) {
  let base = db.selectFrom('payouts').innerJoin('performers', 'performers.id', 'payouts.performerId').where('payouts.status', '=', 'paid');
  if (p.performerId) base = base.where('payouts.performerId', '=', p.performerId);
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll('payouts').select(['performers.username', 'performers.displayName as name']).orderBy('payouts.createdAt', 'desc').orderBy('payouts.id', 'desc'));
  return { items: rows.map(payoutView), total };
}

export function payoutView(r: Pick<PayoutsTable, 'id' | 'performerId' | 'amount' | 'earningsCount' | 'currency' | 'note' | 'actorId' | 'createdAt'> & { username?: string | null; name?: string | null }) {
  return { _id: r.id, performerId: r.performerId, username: r.username ?? null, name: r.name ?? r.username ?? null, amount: r.amount, earningsCount: r.earningsCount, currency: r.currency, note: r.note, actorId: r.actorId, createdAt: r.createdAt };
}

// ---------------------------------------------------------------------------------------------------------------
// Dashboard.

export interface SeriesPoint {
  date: string;
  value: number;
}

/** The last `days` UTC dates, oldest first (YYYY-MM-DD). */
export function lastDays(days: number, now = new Date()): string[] {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(end - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

function fill(dates: string[], rows: Array<{ day: string; v: number | string | null }>): SeriesPoint[] {
  const by = new Map(rows.map((r) => [r.day, Number(r.v ?? 0)]));
  return dates.map((date) => ({ date, value: by.get(date) ?? 0 }));
}

/** Reports created before this time and still open are overdue (docs/product.md, Reports). */
export const reportsOverdueBefore = (now: Date) => new Date(now.getTime() - REPORT_OVERDUE_DAYS * DAY_MS).toISOString();

export async function dashboard(db: DbOrTrx, days: number, now = new Date()) {
  const dates = lastDays(days, now);
  const from = `${dates[0]}T00:00:00.000Z`;
  const nowIso = now.toISOString();
  const num = (r: { n: number | string } | undefined) => Number(r?.n ?? 0);
  const [users, performers, pendingPerformers, suspended, activeSubs, videos, revenue, paymentsOk, unpaidEarnings, signups, revenueRows, reports] = await Promise.all([
    db.selectFrom('users').select(count.as('n')).executeTakeFirst().then(num),
    db.selectFrom('performers').select(count.as('n')).executeTakeFirst().then(num),
    db.selectFrom('performers').select(count.as('n')).where('approved', '=', 0).executeTakeFirst().then(num),
    db.selectFrom('users').select(count.as('n')).where('status', '=', 'suspended').executeTakeFirst().then(num),
    db.selectFrom('subscriptions').select(count.as('n')).where('status', 'in', ['active', 'cancelled']).where('expiresAt', '>', nowIso).executeTakeFirst().then(num),
    db.selectFrom('videos').select(count.as('n')).executeTakeFirst().then(num),
    db.selectFrom('payments').select(keptSum().as('n')).where('status', '=', 'success').executeTakeFirst().then((r) => Number(r?.n ?? 0)),
    db.selectFrom('payments').select(count.as('n')).where('status', '=', 'success').executeTakeFirst().then(num),
    // Owed to performers: unpaid real earnings (test money from the sandbox is never owed).
    db.selectFrom('earnings').select(sql<number | string | null>`sum(net)`.as('n')).where('isPaid', '=', 0).where('testMoney', '=', 0).executeTakeFirst().then((r) => Number(r?.n ?? 0)),
    db
      .selectFrom('users')
      .select([sql<string>`substr(created_at, 1, 10)`.as('day'), count.as('v')])
      .where('createdAt', '>=', from)
      .groupBy(sql`substr(created_at, 1, 10)`)
      .execute(),
    db
      .selectFrom('payments')
      .select([sql<string>`substr(coalesce(paid_at, created_at), 1, 10)`.as('day'), keptSum().as('v')])
      .where('status', '=', 'success')
      .where(sql<string>`coalesce(paid_at, created_at)`, '>=', from)
      .groupBy(sql`substr(coalesce(paid_at, created_at), 1, 10)`)
      .execute(),
    reportCounts(db, reportsOverdueBefore(now)),
  ]);
  // Subscriptions live at the end of each day: started by then and not yet expired (one small count per day).
  const subsSeries = await Promise.all(
    dates.map(async (date) => {
      const end = `${date}T23:59:59.999Z`;
      const r = await db
        .selectFrom('subscriptions')
        .select(count.as('n'))
        .where('startedAt', '<=', end)
        .where('expiresAt', '>', end)
        .where('status', '!=', 'pending')
        .executeTakeFirst();
      return { date, value: num(r) };
    }),
  );
  return {
    counts: { users, performers, pendingPerformers, suspendedUsers: suspended, activeSubscriptions: activeSubs, videos, successfulPayments: paymentsOk, revenue, unpaidEarnings, openReports: reports.open, overdueReports: reports.overdue },
    series: { signups: fill(dates, signups), revenue: fill(dates, revenueRows), activeSubscriptions: subsSeries },
  };
}
export type Dashboard = Awaited<ReturnType<typeof dashboard>>;

// ---------------------------------------------------------------------------------------------------------------
// Names: the console's lists show who and what by name (and link to them), not bare ids.

/** A thing a console row refers to, by name. `username`: a user's or performer's (their links use it); `parentId`: a photo's gallery. */
export interface NamedRef {
  type: string;
  _id: string;
  name: string | null;
  username: string | null;
  parentId: string | null;
}

export const refKey = (type: string, id: string) => `${type}:${id}`;

type NameRow = { id: string; name: string | null; username?: string | null; parentId?: string | null };

/** One query per kind of thing: the rows' names, keyed by id. A deleted target is simply missing. */
async function namesOf(db: DbOrTrx, type: string, ids: string[]): Promise<NameRow[]> {
  switch (type) {
    case 'user':
      return db.selectFrom('users').select(['id', 'name', 'username']).where('id', 'in', ids).execute();
    case 'performer':
      return db.selectFrom('performers').select(['id', 'displayName as name', 'username']).where('id', 'in', ids).execute();
    case 'video':
      return db.selectFrom('videos').select(['id', 'title as name']).where('id', 'in', ids).execute();
    case 'gallery':
      return db.selectFrom('galleries').select(['id', 'title as name']).where('id', 'in', ids).execute();
    case 'photo':
      return db.selectFrom('photos').select(['id', 'title as name', 'galleryId as parentId']).where('id', 'in', ids).execute();
    case 'product':
      return db.selectFrom('products').select(['id', 'name']).where('id', 'in', ids).execute();
    case 'post':
      return db.selectFrom('posts').select(['id', 'title as name']).where('id', 'in', ids).execute();
    case 'comment':
      return db.selectFrom('comments').select(['id', sql<string>`substr(content, 1, 80)`.as('name')]).where('id', 'in', ids).execute();
    case 'coupon':
      return db.selectFrom('coupons').select(['id', 'code as name']).where('id', 'in', ids).execute();
    case 'package':
      return db.selectFrom('subscriptionPackages').select(['id', 'name']).where('id', 'in', ids).execute();
    case 'banner':
      return db.selectFrom('banners').select(['id', 'title as name']).where('id', 'in', ids).execute();
    case 'category':
      return db.selectFrom('categories').select(['id', 'name']).where('id', 'in', ids).execute();
    case 'order':
      return db.selectFrom('orders').select(['id', 'orderNumber as name']).where('id', 'in', ids).execute();
    case 'payment':
      // A payment is named by who paid (its page row is found by its id).
      return db.selectFrom('payments').innerJoin('users', 'users.id', 'payments.userId').select(['payments.id', 'users.name', 'users.username']).where('payments.id', 'in', ids).execute();
    default:
      return [];
  }
}

/** Names of any mix of things, in one query per kind; keyed by `refKey(type, id)`. */
export async function describeRefs(db: DbOrTrx, refs: Iterable<{ type: string; id: string | null | undefined }>): Promise<Map<string, NamedRef>> {
  const byType = new Map<string, Set<string>>();
  for (const r of refs) if (r.id) (byType.get(r.type) ?? byType.set(r.type, new Set()).get(r.type)!).add(r.id);
  const out = new Map<string, NamedRef>();
  await Promise.all(
    [...byType].map(async ([type, ids]) => {
      for (const row of await namesOf(db, type, [...ids])) {
        out.set(refKey(type, row.id), { type, _id: row.id, name: row.name ?? null, username: row.username ?? null, parentId: row.parentId ?? null });
      }
    }),
  );
  return out;
}

/** A person (buyer, actor, commenter) by name: `{ _id, username, name }`, or null when the account is gone. */
export function personOf(refs: Map<string, NamedRef>, type: 'user' | 'performer', id: string | null | undefined) {
  const r = id ? refs.get(refKey(type, id)) : undefined;
  return r ? { _id: r._id, username: r.username ?? '', name: r.name || r.username || '' } : null;
}

/** An item (video, gallery, photo, product, post, performer) by title: `{ type, _id, title, parentId }`. */
export function itemOf(refs: Map<string, NamedRef>, type: string, id: string | null | undefined) {
  if (!id) return null;
  const r = refs.get(refKey(type, id));
  return { type, _id: id, title: r?.name ?? null, username: r?.username ?? null, parentId: r?.parentId ?? null };
}

const PAYMENT_ITEM_TYPE: Record<string, string | undefined> = { video: 'video', gallery: 'gallery', post: 'post' };

/** Orders with their buyer's and performer's names and the names of what was bought (GET /admin/orders, /admin/orders page). */
export async function listOrdersNamed(db: DbOrTrx, f: OrderFilters) {
  const { rows, total } = await listOrders(db, f);
  const [refs, lines] = await Promise.all([
    describeRefs(db, rows.flatMap((o) => [{ type: 'user', id: o.buyerId }, { type: 'performer', id: o.performerId }])),
    itemsOfOrders(db, rows.map((o) => o.id)),
  ]);
  return {
    items: rows.map((o) => ({
      _id: o.id, orderNumber: o.orderNumber, paymentId: o.paymentId, buyerId: o.buyerId, performerId: o.performerId, status: o.status, deliveryStatus: o.deliveryStatus,
      totalPrice: o.totalPrice, trackingCode: o.trackingCode, createdAt: o.createdAt,
      buyer: personOf(refs, 'user', o.buyerId),
      performer: personOf(refs, 'performer', o.performerId),
      lines: lines.filter((l) => l.orderId === o.id).map((l) => ({ productId: l.productId, name: l.name, quantity: l.quantity })),
    })),
    total,
  };
}

/**
 * The audit log with names: who did it (the actor's name and username) and what it was done to (a coupon's code, a
 * user's name, a video's title…). A target deleted since keeps the name its entry's details recorded (code, title,
 * name, username); a country is named from countries-list.
 */
export async function listAuditNamed(db: DbOrTrx, f: AuditFilters) {
  const { items, total } = await listAudit(db, f);
  const refs = await describeRefs(db, [...items.map((a) => ({ type: 'user', id: a.actorId })), ...items.map((a) => ({ type: a.targetType ?? '', id: a.targetId }))]);
  const recorded = (d: Record<string, unknown>) => [d.code, d.title, d.name, d.username].find((v): v is string => typeof v === 'string' && v !== '') ?? null;
  const countryNames: Record<string, { name: string } | undefined> = countries;
  return {
    items: items.map((a) => {
      const ref = a.targetType && a.targetId ? refs.get(refKey(a.targetType, a.targetId)) : undefined;
      const name = ref?.name ?? (a.targetType === 'country' && a.targetId ? (countryNames[a.targetId]?.name ?? null) : recorded(a.details));
      return {
        ...a,
        actor: personOf(refs, 'user', a.actorId),
        target: a.targetType ? { type: a.targetType, _id: a.targetId, name, username: ref?.username ?? null, parentId: ref?.parentId ?? null, exists: Boolean(ref) } : null,
      };
    }),
    total,
  };
}
