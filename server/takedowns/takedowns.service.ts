import { randomBytes } from 'node:crypto';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, isUniqueViolation, notFound } from '../http/errors.js';
import type { Audit } from '../admin/admin.http.js';
import { setItemStatus } from '../admin/moderation.js';
import { writeAudit } from '../audit/audit.repository.js';
import type { Mailer, MailMessage } from '../mail/mailer.js';
import type { MailSite } from '../mail/templates.js';
import type { TakedownAction, TakedownStatus, TakedownTargetType } from '../../common/enums.js';
import type { AdminTakedownCase, AdminTakedownList, AdminTakedownQuery, CreateTakedownRequest, TakedownReceipt } from '../../common/schemas/takedowns.js';
import { parseTargetUrl } from './target-url.js';
import {
  activeAdminEmails, findOpenLead, findTakedownItem, insertTakedownRequest, listTakedownCases, requestsOfCases, resolveOpenTakedowns, takedownCounts, type TakedownItem,
} from './takedowns.repository.js';
import { takedownAdminMail, takedownOutcomeMail, takedownReceivedMail } from './takedown-mails.js';

/**
 * Takedown requests (docs/product.md, Takedown requests; server/takedowns/README.md). Anyone files one through the
 * public form; the item it names is hidden at once with the console's own moderation action (`setItemStatus`), and the
 * status it had is kept on the request so that a restore puts it back. An item has one open case: the first request is
 * its lead (it hid the item), later ones are recorded as followers and resolved with it. A performer's page is not
 * hidden by an anonymous request (that would take a whole account off the site): it waits for an admin.
 */

/** An open case older than this is overdue in the console. */
export const TAKEDOWN_OVERDUE_HOURS = 48;

export interface TakedownDeps {
  db: Db;
  mailer: Pick<Mailer, 'queue'>;
  site: () => Promise<MailSite>;
}

const unknownItem = () =>
  new AppError(400, 'UNKNOWN_ITEM', 'This address is not a video, gallery, photo, product, post or performer page of this site', { field: 'url' });

/** A reference the requester can quote: short, unguessable, not the row id. */
const newReference = () => `TD-${randomBytes(5).toString('hex').toUpperCase()}`;

/** What a takedown hides: every kind but a performer's page, which an admin decides on. */
const hidesAtOnce = (type: TakedownTargetType) => type !== 'performer';

export async function fileTakedown(
  deps: TakedownDeps,
  input: CreateTakedownRequest & { declaration: true },
  meta: { ip: string; ownHosts: readonly string[] },
): Promise<TakedownReceipt> {
  const ref = parseTargetUrl(input.url, meta.ownHosts);
  if (!ref) throw unknownItem();
  const item = await findTakedownItem(deps.db, ref.type, ref.key);
  if (!item) throw unknownItem();
  const reference = newReference();
  const file = () => deps.db.transaction().execute((trx) => record(trx, ref.type, item, input, reference, meta.ip));
  try {
    await file();
  } catch (err) {
    // Two first requests of one item at once: the one-lead index keeps the first; this one files again as a follower.
    if (!isUniqueViolation(err)) throw err;
    await file();
  }
  const site = await deps.site();
  deps.mailer.queue(takedownReceivedMail(site, { email: input.email.trim(), name: input.name.trim(), reference }, input.url.trim()));
  for (const to of await activeAdminEmails(deps.db)) {
    deps.mailer.queue(takedownAdminMail(site, to, { reference, url: input.url.trim(), relationship: input.relationship, targetType: ref.type }));
  }
  return { reference, status: 'received' };
}

async function record(trx: DbOrTrx, type: TakedownTargetType, item: TakedownItem, input: CreateTakedownRequest, reference: string, ip: string): Promise<void> {
  const lead = await findOpenLead(trx, type, item.id);
  let previousStatus: string | null = null;
  if (!lead && hidesAtOnce(type)) {
    // The anonymous requester is no admin: the hide is audited with no actor, the request's reference in its details.
    const audit: Audit = (action, targetType, targetId, details) => writeAudit(trx, { actorId: null, action, targetType, targetId, details: { ...details, takedown: reference }, ip }).then(() => {});
    // Already hidden (by an admin, or a takedown that was upheld): nothing more to hide, and a restore leaves it hidden.
    previousStatus = item.status === 'hidden' ? 'hidden' : await setItemStatus(trx, audit, type as Exclude<TakedownTargetType, 'performer'>, item.id, 'hidden');
  }
  const now = nowIso();
  await insertTakedownRequest(trx, {
    id: newId(),
    reference,
    targetType: type,
    targetId: item.id,
    url: input.url.trim(),
    requesterName: input.name.trim(),
    requesterEmail: input.email.trim().toLowerCase(),
    relationship: input.relationship,
    statement: input.statement.trim(),
    declaredAt: now,
    isLead: lead ? 0 : 1,
    previousStatus: lead ? null : previousStatus,
    status: 'open',
    createdAt: now,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The console.

const pagePrefix: Record<TakedownTargetType, string> = { video: '/videos/', gallery: '/galleries/', photo: '/galleries/', product: '/products/', post: '/posts/', performer: '/performers/' };

function pageUrl(type: TakedownTargetType, item: TakedownItem | undefined): string | null {
  if (!item?.pageKey) return null;
  return `${pagePrefix[type]}${encodeURIComponent(item.pageKey)}${type === 'photo' ? `?photo=${encodeURIComponent(item.id)}` : ''}`;
}

export const overdueBefore = (now: Date) => new Date(now.getTime() - TAKEDOWN_OVERDUE_HOURS * 3_600_000).toISOString();

/** The queue: one case per item with every request filed against it; open ones oldest first. */
export async function listTakedownQueue(db: DbOrTrx, q: AdminTakedownQuery, now = new Date()): Promise<AdminTakedownList> {
  const before = overdueBefore(now);
  const [{ rows, total }, counts] = await Promise.all([listTakedownCases(db, q.status, q.limit, q.offset), takedownCounts(db, before)]);
  const requests = await requestsOfCases(db, q.status, rows);
  const items = await Promise.all(
    rows.map(async (c): Promise<AdminTakedownCase> => {
      const item = await findTakedownItem(db, c.targetType, c.targetId);
      const own = requests.filter((r) => r.targetType === c.targetType && r.targetId === c.targetId);
      const lead = own.find((r) => r.isLead === 1);
      return {
        targetType: c.targetType,
        targetId: c.targetId,
        title: item?.title ?? null,
        url: pageUrl(c.targetType, item),
        itemStatus: item?.status ?? 'deleted',
        previousStatus: lead?.previousStatus ?? null,
        status: q.status,
        firstAt: c.firstAt,
        overdue: q.status === 'open' && c.firstAt < before,
        resolvedAt: c.resolvedAt,
        requests: own.map((r) => ({ _id: r.id, reference: r.reference, name: r.requesterName, email: r.requesterEmail, relationship: r.relationship, statement: r.statement, url: r.url, createdAt: r.createdAt })),
      };
    }),
  );
  return { items, total, open: counts.open, overdue: counts.overdue };
}

export interface Resolved {
  result: { targetType: TakedownTargetType; targetId: string; status: TakedownStatus; itemStatus: string | null; resolved: number };
  /** Mails the requesters once the transaction committed. */
  after: () => Promise<void>;
}

/**
 * Resolves an item's open case inside the admin's audited transaction: uphold keeps it hidden; restore puts back the
 * status it had before the takedown hid it (an item hidden before the request stays hidden; one deleted meanwhile is
 * left alone). Every requester of the case is mailed the outcome after the commit. 404 when the item has no open case
 * (another admin resolved it first: nothing changes).
 */
export async function resolveTakedownCase(
  trx: DbOrTrx,
  audit: Audit,
  deps: Pick<TakedownDeps, 'mailer' | 'site'>,
  actorId: string,
  type: TakedownTargetType,
  id: string,
  action: TakedownAction,
  note: string | null,
): Promise<Resolved> {
  const status = action === 'uphold' ? 'upheld' : 'restored';
  const resolved = await resolveOpenTakedowns(trx, type, id, status, actorId, nowIso());
  if (!resolved.length) throw notFound('Open takedown request');
  const lead = resolved.find((r) => r.isLead === 1);
  const item = await findTakedownItem(trx, type, id);
  let itemStatus = item?.status ?? null;
  const back = lead?.previousStatus;
  if (action === 'restore' && item && hidesAtOnce(type) && back && back !== 'hidden' && item.status === 'hidden') {
    await setItemStatus(trx, audit, type as Exclude<TakedownTargetType, 'performer'>, id, back);
    itemStatus = back;
  }
  await audit(`takedown.${action}`, type, id, { references: resolved.map((r) => r.reference), requests: resolved.length, itemStatus, note });
  return {
    result: { targetType: type, targetId: id, status, itemStatus, resolved: resolved.length },
    after: async () => {
      const site = await deps.site();
      for (const r of resolved) deps.mailer.queue(takedownOutcomeMail(site, { email: r.requesterEmail, name: r.requesterName, reference: r.reference }, status));
    },
  };
}
