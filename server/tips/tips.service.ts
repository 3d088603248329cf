import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, notFound } from '../http/errors.js';
import type { SessionUser } from '../auth/auth.service.js';
import type { Audience } from '../catalogue/catalogue.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import { findPerformerForSale } from '../subscriptions/subscriptions.repository.js';
import { findPostByKey } from '../posts/posts.repository.js';
import { findVideoByKey } from '../videos/videos.repository.js';
import type { Money } from '../payments/money.js';
import { beforeCheckout, checkout, type Draft } from '../payments/checkout.service.js';
import type { TipContextType } from '../../common/enums.js';
import type { TipRequest } from '../../common/schemas/money.js';
import { tipAmountProblem, type TipLimits } from '../../common/tips.js';
import { insertTip, tipOfPayment, tipsOfPayments } from './tips.repository.js';
import { findConversation } from '../messages/messages.repository.js';
import { assertNotBlocked } from '../blocks/blocks.service.js';

/**
 * Tips (server/payments/README.md, "Tips"): a fan gives a performer an amount of their choosing. A tip is one more
 * kind of checkout: a payment of type 'tip' with one item of object type 'tip' (pointing at its `tips` row), paid at
 * the provider and settled by the same webhooks and state machine as any sale, so its earning, commission, refunds,
 * chargebacks, receipt and replays are the settlement's. What is a tip's own: the amount limits, who may be tipped,
 * where it was given and the note, and the performer's notification when it is paid.
 */

/** The site's tip limits (settings tipMinimum, tipMaximum; minor units). */
export async function tipLimits(settings: Pick<SettingsService, 'get'>): Promise<TipLimits> {
  return { min: Number(await settings.get('tipMinimum')), max: Number(await settings.get('tipMaximum')) };
}

/** A tip's note: trimmed, control characters out (it is shown on the performer's earnings), null when empty. */
function cleanNote(note: string | undefined): string | null {
  const text = (note ?? '').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '').trim();
  return text ? text : null;
}

/**
 * Where the tip was given, checked against what the fan may see: the performer's page (the default), one of the
 * performer's posts or videos that is public to this fan, or the fan's own conversation with the performer. Anything
 * else answers 404 as if it did not exist; what exists but is another performer's, 400 TIP_CONTEXT_MISMATCH.
 */
async function tipContext(db: DbOrTrx, buyer: Audience, fanId: string, performer: { id: string; username: string }, context: TipRequest['context']): Promise<{ type: TipContextType; id: string }> {
  const performerId = performer.id;
  if (!context || context.type === 'performer') {
    if (context && context.id !== performer.id && context.id !== performer.username) throw new AppError(400, 'TIP_CONTEXT_MISMATCH', 'The tip is given on another performer\'s page');
    return { type: 'performer', id: performerId };
  }
  if (context.type === 'conversation') {
    // Only the conversation's fan tips from it: to anyone else (its performer, other fans) it does not exist, as in messages.
    const conversation = await findConversation(db, context.id);
    if (!conversation || conversation.fanId !== fanId) throw notFound('Conversation');
    if (conversation.performerId !== performerId) throw new AppError(400, 'TIP_CONTEXT_MISMATCH', 'This conversation is with another performer');
    return { type: 'conversation', id: conversation.id };
  }
  const item = context.type === 'video' ? await findVideoByKey(db, context.id, buyer) : await findPostByKey(db, context.id, buyer);
  if (!item || Number(item.visible) !== 1) throw notFound(context.type === 'video' ? 'Video' : 'Post');
  if (item.performerId !== performerId) throw new AppError(400, 'TIP_CONTEXT_MISMATCH', `This ${context.type} is not the performer's`);
  return { type: context.type, id: item.id };
}

/**
 * What a tip checkout buys: one line of the amount, of object type 'tip' (its `tips` row, written in the checkout's
 * transaction). The demo seed tips with the same draft.
 */
export function tipDraft(p: {
  tipId: string;
  userId: string;
  performer: { id: string; displayName: string };
  amount: number;
  context: { type: TipContextType; id: string };
  note: string | null;
}): Draft {
  const name = `Tip to ${p.performer.displayName}`;
  return {
    type: 'tip',
    performerId: p.performer.id,
    targetId: p.performer.id,
    description: name,
    lines: [{ objectType: 'tip', objectId: p.tipId, performerId: p.performer.id, unitPrice: p.amount, quantity: 1, name }],
    // A tip is the fan's own amount: no coupon lowers it.
    coupon: null,
    details: { tipId: p.tipId, contextType: p.context.type, contextId: p.context.id },
    extra: (trx, paymentId) =>
      insertTip(trx, {
        id: p.tipId, paymentId, userId: p.userId, performerId: p.performer.id, amount: p.amount, contextType: p.context.type, contextId: p.context.id,
        note: p.note, createdAt: nowIso(),
      }),
  };
}

/**
 * POST /payment/tip. Refused before anything is written: an amount outside the site's limits (400), a performer the
 * fan cannot see (404) or who is not approved (403 PERFORMER_NOT_APPROVED), oneself (400 CANNOT_TIP_SELF), a
 * performer who blocked the fan (403 BLOCKED_BY_PERFORMER), a context that is not the performer's or not public (400 / 404).
 */
export async function checkoutTip(money: Money, user: SessionUser, buyer: Audience, input: TipRequest, siteUrl: string) {
  const { db, settings } = money.ctx;
  await beforeCheckout(money);
  const problem = tipAmountProblem(input.amount, await tipLimits(settings), String(await settings.get('currencySymbol')));
  if (problem) throw new AppError(400, problem.code, problem.message, [{ path: 'body.amount', message: problem.message }]);
  const performer = await findPerformerForSale(db, input.performerId, buyer);
  // A performer who blocks the fan's country does not exist for them, here as in the catalogue.
  if (!performer || performer.status !== 'active' || Number(performer.openToBuyer) !== 1) throw notFound('Performer');
  if (performer.approved !== 1) throw new AppError(403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: they cannot be tipped');
  if (performer.id === user.id) throw new AppError(400, 'CANNOT_TIP_SELF', 'You cannot tip yourself');
  await assertNotBlocked(db, performer.id, user.id, 'tip');
  const context = await tipContext(db, buyer, user.id, performer, input.context);
  const draft = tipDraft({ tipId: newId(), userId: user.id, performer, amount: input.amount, context, note: cleanNote(input.note) });
  return checkout(money, user, draft, siteUrl);
}

/** Where an earning's tip links: the post or video it was given on, or the conversation it came from. */
function contextUrlOf(type: TipContextType | null, id: string | null): string | null {
  if (!id) return null;
  if (type === 'video' || type === 'post') return `/${type}s/${id}`;
  return type === 'conversation' ? `/messages/${id}` : null;
}

/** The tips of these payments by payment id, as an earning shows them. */
export async function tipsByPayment(db: DbOrTrx, paymentIds: readonly string[]) {
  const rows = await tipsOfPayments(db, [...new Set(paymentIds)]);
  return new Map(
    rows.map((r) => [
      r.paymentId,
      {
        note: r.note,
        contextType: r.contextType,
        contextId: r.contextId,
        contextTitle: r.videoTitle ?? r.postTitle ?? null,
        contextUrl: contextUrlOf(r.contextType, r.contextId),
      },
    ]),
  );
}

/** The conversation a fan's tip was given from, for its payment's result page to lead back to; else null. */
export async function tipConversationOf(db: DbOrTrx, userId: string, paymentId: string): Promise<string | null> {
  const tip = await tipOfPayment(db, paymentId);
  return tip && tip.userId === userId && tip.contextType === 'conversation' ? tip.contextId : null;
}
