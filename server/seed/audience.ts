import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import type { Access } from '../db/schema.js';
import type { EngagementObjectType } from '../../common/enums.js';
import { loadAccessView, postSubject, productSubject, videoSubject, gallerySubject, type AccessSubject } from '../access/access.service.js';
import { insertReactions, type ReactionKey } from '../reactions/reactions.repository.js';
import { adjustCounter, recountReactionCounters } from '../reactions/targets.repository.js';
import { insertComment } from '../comments/comments.repository.js';
import { objectPath } from '../comments/comments.service.js';
import { addNotification } from '../notifications/notifications.service.js';
import { insertViewsAndRecount, type ViewRow } from '../videos/views.repository.js';
import { viewerKey } from '../videos/views.service.js';
import { activePackages } from '../subscriptions/subscriptions.repository.js';
import { checkoutRows, subscriptionDraft, type Draft } from '../payments/checkout.service.js';
import { tipDraft } from '../tips/tips.service.js';
import { insertPayment, setCheckout } from '../payments/payments.repository.js';
import { priceLines } from '../payments/pricing.js';
import { SandboxGateway, sandboxWebhookSecret } from '../payments/sandbox.gateway.js';
import { sandboxSubscriptionOfCharge } from '../payments/sandbox.repository.js';
import { addFollow } from '../follows/follows.repository.js';
import { applyGatewayEventIn } from '../payments/settlement.service.js';
import { seededRandom } from '../../common/random.js';
import { commentTexts, firstNames, lastNames, profileTexts, tipNotes } from './content.js';
import { DAY_MS } from '../../common/time.js';

/**
 * The demo site's audience: demo fans who subscribe, watch, like, favourite and comment, so that every number the
 * site shows (subscribers, views, likes, favourites, comments) is a count of rows that exist, and one more real
 * subscription, like or view moves it by exactly one. Nothing here writes a counter itself: every row goes through
 * the code the app uses for it, in the seed's transaction:
 *
 *  - a subscription is a checkout (`subscriptionDraft`, `checkoutRows`: the pending payment, its item and the
 *    subscription row), a charge at the sandbox provider approved on its side, and the provider's signed
 *    `charge.succeeded` event applied by the settlement (`applyGatewayEventIn`): the paid period, the test-money
 *    earning and `performers.subscriber_count` recounted, as for any fan. They start when the seed runs (the
 *    settlement's clock), like a real payment would, and renew until cancelled: the sandbox provider's billing is
 *    started with them, so its clock charges the next period when one ends;
 *  - a comment is `insertComment` + `adjustCounter` + the performer's notification (the comments service's), only
 *    where the access rules let that fan take part in the discussion;
 *  - likes, favourites and views are many (over a thousand rows), so they are written in batches and their counters
 *    then set to the rows counted (`recountReactionCounters`, `insertViewsAndRecount`): one statement per table
 *    instead of two per row, which kept the seed's rows at a second on PostgreSQL instead of four. A view is only by
 *    someone the access rules let watch the full video, plus simulated guest visitors on free videos (each a distinct
 *    guest viewer, as the views service keys a guest); a reaction only on an item the fan can see.
 *
 * Choices come from one seeded generator, so the same seed gives the same audience.
 */

type Trx = Transaction<Database>;

export interface AudienceFan {
  id: string;
  email: string;
  /** Shown as who commented in the performer's notifications. */
  name?: string;
  /** When the account was made: nothing it does is older. */
  createdAt: string;
}

export interface AudiencePerformer {
  id: string;
  displayName: string;
  monthlyPrice: number;
  yearlyPrice: number;
  featured: boolean;
}

export interface AudienceItem {
  objectType: Exclude<EngagementObjectType, 'performer'>;
  id: string;
  performerId: string | null;
  title: string;
  access: Access;
  /** Products only. */
  productType?: 'physical' | 'digital';
  publishedAt: string;
}

export interface AudienceInput {
  fans: AudienceFan[];
  performers: AudiencePerformer[];
  items: AudienceItem[];
  /** The seed's clock (ms): engagement that needs no subscription is spread over the days before it. */
  now: number;
  scale: number;
  siteUrl: string;
  appSecret: string;
  currency: string;
  commissionBps: number;
  checkoutExpiryMinutes: number;
}

export interface AudienceCounts {
  subscriptions: number;
  tips: number;
  follows: number;
  reactions: number;
  comments: number;
  views: number;
}


/** How many demo fans a seed of this scale has: a few dozen for the normal demo site. */
export function demoFanCount(scale: number): number {
  return Math.min(400, Math.max(6, Math.round(36 * scale)));
}

/** The demo fans' names: "Ellie Walsh", username "ellie.walsh7". */
export function demoFanNames(count: number, seed = 'demo-fans'): Array<{ name: string; username: string }> {
  const rnd = seededRandom(seed);
  const used = new Set<string>();
  const out: Array<{ name: string; username: string }> = [];
  for (let i = 0; out.length < count; i++) {
    const first = firstNames[Math.floor(rnd() * firstNames.length)]!;
    const last = lastNames[Math.floor(rnd() * lastNames.length)]!;
    const base = `${first}.${last}`.toLowerCase().normalize('NFKD').replace(/[^a-z.]/g, '');
    const username = `${base}${1 + (i % 97)}`;
    if (used.has(username)) continue;
    used.add(username);
    out.push({ name: `${first} ${last}`, username });
  }
  return out;
}

/** Adds the audience's rows inside the seed's transaction; answers how many of each it wrote. */
export async function seedAudience(trx: Trx, input: AudienceInput): Promise<AudienceCounts> {
  const rnd = seededRandom('demo-audience');
  const chance = (p: number) => rnd() < p;
  const counts: AudienceCounts = { subscriptions: 0, tips: 0, follows: 0, reactions: 0, comments: 0, views: 0 };
  /** A moment after every one of `afterIsos` and before the seed's clock, as ISO text. */
  const someTimeAfter = (...afterIsos: string[]) => {
    const from = Math.max(...afterIsos.map((t) => Date.parse(t)));
    const span = Math.max(60_000, input.now - from);
    return nowIso(new Date(from + Math.floor(rnd() * span)));
  };

  // -- Subscriptions, through the checkout's rows and the provider's settlement. ------------------------------------
  const gateway = new SandboxGateway({ db: trx, secret: sandboxWebhookSecret(input.appSecret) });
  const packages = await activePackages(trx);
  /** A checkout of `draft` by the fan, approved at the sandbox and settled by its event: answers whether it was paid. */
  const pay = async (fan: AudienceFan, draft: Draft, what: string) => {
    const priced = priceLines(draft.lines, 0);
    if (priced.amount < 1) return false;
    const paymentId = newId();
    const now = nowIso();
    const expiresAt = new Date(Date.parse(now) + input.checkoutExpiryMinutes * 60_000).toISOString();
    const rows = checkoutRows({ paymentId, userId: fan.id, draft, priced, gateway: 'sandbox', currency: input.currency, coupon: null, now, expiresAt, holdsStock: false });
    await insertPayment(trx, rows.payment, rows.items);
    await draft.extra?.(trx, paymentId, 'sandbox');
    const session = await gateway.createCheckout({
      paymentId, amount: priced.amount, currency: input.currency, description: draft.description, expiresAt, customerEmail: fan.email,
      siteUrl: input.siteUrl, returnUrl: `${input.siteUrl}/payments/result/${paymentId}`, cancelUrl: `${input.siteUrl}/payments/result/${paymentId}?cancelled=1`,
      // Recurring, as every subscription checkout: the sandbox's clock renews demo subscriptions when their period ends.
      ...(draft.recurring ? { recurring: draft.recurring } : {}),
    });
    await setCheckout(trx, paymentId, session.gatewayRef, session.redirectUrl);
    // The fan approves on the provider's page; the provider's signed event is read and applied as the webhook route does.
    const { charge } = await gateway.complete(session.gatewayRef, 'approve');
    const billing = await sandboxSubscriptionOfCharge(trx, charge.id);
    const sent = gateway.buildEvent('charge.succeeded', charge, undefined, billing ? { subscriptionId: billing.id } : {});
    const event = await gateway.parseWebhook(Buffer.from(sent.body), sent.headers);
    // Its effects are left unrun on purpose: demo fans get no receipts, performers no new-subscriber mails, nobody a push.
    const result = await applyGatewayEventIn(trx, { commissionBps: input.commissionBps, graceDays: 3 }, 'sandbox', event, sent.body);
    if (result.outcome !== 'paid') throw new Error(`demo ${what} of ${fan.email} was not paid: ${result.outcome}`);
    return true;
  };
  const subscribe = async (fan: AudienceFan, performer: AudiencePerformer, type: 'monthly' | 'yearly') => {
    if (await pay(fan, subscriptionDraft(performer, fan.id, type, packages[type]), `subscription to ${performer.displayName}`)) counts.subscriptions++;
  };
  // -- Follows: every subscriber, and more fans who only follow (free), each row with its counter as the service does.
  const follow = async (fan: AudienceFan, performer: AudiencePerformer) => {
    if (await addFollow(trx, fan.id, performer.id, nowIso())) counts.follows++;
  };
  const subscribers: Array<[AudienceFan, AudiencePerformer]> = [];
  for (const fan of input.fans) {
    for (const performer of input.performers) {
      const subscribes = chance(performer.featured ? 0.25 : 0.07);
      if (subscribes) await subscribe(fan, performer, chance(0.2) ? 'yearly' : 'monthly');
      if (subscribes) subscribers.push([fan, performer]);
      if (subscribes || chance(performer.featured ? 0.3 : 0.1)) await follow(fan, performer);
    }
  }

  // -- Tips: a few subscribers tip, on the performer's page or one of their free posts or videos, through the same
  // checkout rows and settlement (earning, commission, the performer's notification). Their own generator, so the
  // choices above stay what they were.
  const tipRnd = seededRandom('demo-tips');
  const pick = <T>(list: readonly T[]) => list[Math.floor(tipRnd() * list.length)]!;
  for (const [fan, performer] of subscribers) {
    if (tipRnd() >= 0.2) continue;
    const places = input.items.filter((i) => i.performerId === performer.id && i.access === 'free' && (i.objectType === 'video' || i.objectType === 'post'));
    const on = places.length && tipRnd() < 0.6 ? pick(places) : null;
    const draft = tipDraft({
      tipId: newId(), userId: fan.id, performer, amount: pick([300, 500, 1000, 2000, 2500]),
      context: on ? { type: on.objectType as 'video' | 'post', id: on.id } : { type: 'performer', id: performer.id },
      note: tipRnd() < 0.7 ? pick(tipNotes) : null,
    });
    if (await pay(fan, draft, `tip to ${performer.displayName}`)) counts.tips++;
  }

  // -- What each fan may open now (the access rules, read back from the rows just written). -------------------------
  const subjectOf = (item: AudienceItem): AccessSubject => {
    switch (item.objectType) {
      case 'video': return videoSubject({ id: item.id, performerId: item.performerId!, access: item.access });
      case 'gallery': return gallerySubject({ id: item.id, performerId: item.performerId!, access: item.access });
      case 'product': return productSubject({ id: item.id, performerId: item.performerId!, type: item.productType ?? 'physical' });
      case 'post': return postSubject({ id: item.id, performerId: item.performerId, access: item.access });
    }
  };
  const subjects = input.items.map(subjectOf);
  const performersById = new Map(input.performers.map((p) => [p.id, p]));

  const reactions: Array<ReactionKey & { id: string; createdAt: string }> = [];
  const views: ViewRow[] = [];
  const react = (fan: AudienceFan, objectType: EngagementObjectType, objectId: string, action: 'like' | 'favourite' | 'watch_later', at: string) => {
    reactions.push({ id: newId(Date.parse(at)), userId: fan.id, objectType, objectId, action, createdAt: at });
  };
  const comment = async (fan: AudienceFan, objectType: EngagementObjectType, objectId: string, performerId: string | null, title: string, text: string, at: string) => {
    const id = newId(Date.parse(at));
    await insertComment(trx, { id, objectType, objectId, userId: fan.id, content: text, imageFileId: null, createdAt: at, updatedAt: at });
    await adjustCounter(trx, objectType, objectId, 'comment', 1);
    if (performerId) await addNotification(trx, performerId, 'comment', { commentId: id, objectType, objectId, userId: fan.id, title, actorName: fan.name ?? null, url: objectPath(objectType, objectId) }, { email: false });
    counts.comments++;
  };
  const view = (item: AudienceItem, viewer: string, at: string) => {
    views.push({ id: newId(Date.parse(at)), videoId: item.id, performerId: item.performerId!, viewer, createdAt: at });
  };

  for (const fan of input.fans) {
    const access = await loadAccessView(trx, { id: fan.id, role: 'user' }, subjects);
    const subscribedTo = (performerId: string | null) => performerId !== null && access.isSubscribedTo(performerId);
    for (const [i, item] of input.items.entries()) {
      const open = access.decide(subjects[i]!).open;
      // Opened since the subscription started (now) when it took one; otherwise at some time since it was published.
      const at = open && item.access !== 'free' && subscribedTo(item.performerId) ? nowIso() : someTimeAfter(item.publishedAt, fan.createdAt);
      const keen = subscribedTo(item.performerId);
      if (item.objectType === 'video' && open && chance(item.access === 'free' ? 0.45 : 0.7)) view(item, viewerKey({ id: fan.id, role: 'user' }, '', input.appSecret), at);
      // Likes and favourites need the item to be visible, not open (as the reactions service checks).
      if (chance(keen ? 0.3 : 0.1)) react(fan, item.objectType, item.id, 'like', at);
      if (chance(keen ? 0.1 : 0.03)) react(fan, item.objectType, item.id, 'favourite', at);
      if ((item.objectType === 'video' || item.objectType === 'gallery') && chance(0.03)) react(fan, item.objectType, item.id, 'watch_later', at);
      // Comments are for those who may take part in the discussion (server/comments/discussion.ts): whoever may open it.
      if (open && item.objectType !== 'product' && chance(keen ? 0.08 : 0.03)) {
        await comment(fan, item.objectType, item.id, item.performerId, item.title, commentTexts[Math.floor(rnd() * commentTexts.length)]!, at);
      }
    }
    for (const performer of input.performers) {
      const keen = subscribedTo(performer.id);
      const at = someTimeAfter(fan.createdAt);
      if (chance(keen ? 0.6 : 0.15)) react(fan, 'performer', performer.id, 'like', at);
      if (chance(keen ? 0.25 : 0.05)) react(fan, 'performer', performer.id, 'favourite', at);
      if (chance(keen ? 0.1 : 0.02)) {
        await comment(fan, 'performer', performer.id, performer.id, performersById.get(performer.id)!.displayName, profileTexts[Math.floor(rnd() * profileTexts.length)]!, at);
      }
    }
  }

  // -- Visitors without an account watch the free videos (each a different guest, as the views service tells them apart).
  let visitor = 0;
  for (const item of input.items) {
    if (item.objectType !== 'video' || item.access !== 'free') continue;
    const guests = Math.round((4 + rnd() * 40) * Math.min(1, input.scale));
    for (let g = 0; g < guests; g++) view(item, viewerKey(null, `demo-visitor-${visitor++}`, input.appSecret), someTimeAfter(item.publishedAt));
  }

  await insertReactions(trx, reactions);
  await recountReactionCounters(trx);
  await insertViewsAndRecount(trx, views);
  counts.reactions = reactions.length;
  counts.views = views.length;
  return counts;
}
