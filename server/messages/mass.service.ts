import type { Logger } from 'pino';
import type { MassMessagePacing } from '../config.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, badRequest } from '../http/errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { pushNotificationCount } from '../notifications/notifications.service.js';
import { fileRow, insertFiles } from '../media/pipeline/pipeline.repository.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import type { MassAudience } from '../../common/enums.js';
import { type MassMessage } from '../../common/schemas/messages.js';
import { MESSAGE_MAX_ATTACHMENTS, MESSAGE_MAX_CHARS } from '../../common/messages.js';
import {
  advanceMassMessage, ensureConversation, filesByIds, findMassMessage, insertAttachments, insertMassCopy, insertMassMessage, massAudienceCount,
  massAudiencePage, massMessagesOf, performerNameOf, touchConversation,
} from './messages.repository.js';
import { assertPriceAllowed, cleanMessageText, messageViews, notifyMessage, pushUnread, type MessagesDeps } from './messages.service.js';

/**
 * Mass messages (docs/product.md, Messages): a performer writes once to all live subscribers or all followers. The
 * request stores the message and its files and enqueues `messages.mass`; the job delivers a batch of recipients into
 * each one's conversation (opened if needed), then enqueues itself again after a pause, until the audience is walked.
 * Each copy is unique per (mass message, recipient), so a retried or repeated batch writes nothing twice. Blocked
 * fans are left out. The studio shows delivered (copies counted) against total (the audience when it was sent).
 */

export const JOB_MASS_MESSAGE = 'messages.mass';

export interface MassJob {
  massMessageId: string;
}

export interface MassDeps extends MessagesDeps {
  jobs: JobQueue;
  logger?: Logger;
}

type Sender = { id: string; name: string };

function view(r: { id: string; audience: MassAudience; body: string; fileIds: string; total: number; delivered?: unknown; status: 'sending' | 'done'; createdAt: string; finishedAt: string | null; price: number }): MassMessage {
  return {
    _id: r.id,
    audience: r.audience,
    text: r.body,
    attachments: (JSON.parse(r.fileIds) as string[]).length,
    total: Number(r.total),
    delivered: Number(r.delivered ?? 0),
    status: r.status,
    createdAt: r.createdAt,
    finishedAt: r.finishedAt,
    price: Number(r.price),
  };
}

export async function listMassMessages(deps: Pick<MassDeps, 'db'>, performerId: string): Promise<MassMessage[]> {
  return (await massMessagesOf(deps.db, performerId, 50)).map(view);
}

/**
 * Stores a mass message with its files and enqueues its delivery. 400 when there is nothing to send or nobody to send it
 * to, or a price without files. A priced mass message's copies each carry the price: every recipient buys their own.
 */
export async function sendMassMessage(deps: MassDeps, performer: Sender, input: { text: string; audience: MassAudience; files: ReceivedFile[]; price?: number }): Promise<MassMessage> {
  const text = cleanMessageText(input.text);
  if (text.length > MESSAGE_MAX_CHARS) throw new AppError(400, 'MESSAGE_TOO_LONG', `A message is at most ${MESSAGE_MAX_CHARS} characters`);
  if (input.files.length > MESSAGE_MAX_ATTACHMENTS) throw badRequest(`Send at most ${MESSAGE_MAX_ATTACHMENTS} files in one message`);
  if (!text && input.files.length === 0) throw new AppError(400, 'EMPTY_MESSAGE', 'Write something or attach a picture or a video');
  const price = input.price ?? 0;
  assertPriceAllowed({ role: 'performer' }, price, input.files.length);
  const at = nowIso();
  const total = await massAudienceCount(deps.db, performer.id, input.audience, at);
  if (total === 0) throw new AppError(400, 'NO_RECIPIENTS', input.audience === 'subscribers' ? 'You have no subscribers to write to yet' : 'You have no followers to write to yet');
  const id = newId();
  await deps.db.transaction().execute(async (trx) => {
    await insertFiles(
      trx,
      input.files.map((f) =>
        fileRow({ id: f.id, ownerId: performer.id, kind: f.type.kind === 'video' ? 'video' : 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'ready' }, at),
      ),
    );
    await insertMassMessage(trx, { id, performerId: performer.id, audience: input.audience, body: text, fileIds: JSON.stringify(input.files.map((f) => f.id)), total, status: 'sending', cursorUserId: '', createdAt: at, finishedAt: null, price });
    await deps.jobs.enqueue(trx, JOB_MASS_MESSAGE, { massMessageId: id } satisfies MassJob, { subject: `mass-message:${id}` });
  });
  deps.jobs.wake();
  return view({ id, audience: input.audience, body: text, fileIds: JSON.stringify(input.files.map((f) => f.id)), total, delivered: 0, status: 'sending', createdAt: at, finishedAt: null, price });
}

/**
 * Delivers the next batch of a mass message: each recipient's copy, its attachments, the conversation's last message
 * and the recipient's notification in one transaction per recipient, then the live events. Answers whether recipients
 * are left. Safe to run again over the same batch: a copy that exists is skipped.
 */
export async function deliverMassBatch(deps: MessagesDeps, massMessageId: string, batch: number): Promise<boolean> {
  const { db, realtime } = deps;
  const mass = await findMassMessage(db, massMessageId);
  if (!mass || mass.status === 'done') return false;
  const now = nowIso();
  const recipients = await massAudiencePage(db, mass.performerId, mass.audience, now, mass.cursorUserId, batch);
  const files = await filesByIds(db, JSON.parse(mass.fileIds) as string[]);
  const performerName = await performerNameOf(db, mass.performerId);
  for (const fanId of recipients) {
    const messageId = newId();
    const at = nowIso();
    const delivered = await db.transaction().execute(async (trx) => {
      const conversation = await ensureConversation(trx, { id: newId(), fanId, performerId: mass.performerId, createdAt: at, lastMessageAt: at, lastMessageId: null });
      const inserted = await insertMassCopy(trx, { id: messageId, conversationId: conversation.id, senderId: mass.performerId, recipientId: fanId, body: mass.body, massMessageId: mass.id, createdAt: at, price: mass.price });
      if (!inserted) return null;
      await insertAttachments(trx, files.map((f, position) => ({ messageId, fileId: f.id, kind: f.kind === 'video' ? 'video' : 'image', position })));
      await touchConversation(trx, conversation.id, messageId, at);
      await notifyMessage(trx, fanId, { conversationId: conversation.id, messageId, actorId: mass.performerId, actorName: performerName });
      return conversation.id;
    });
    if (!delivered) continue;
    const [message] = await messageViews(deps, fanId, [{ id: messageId, conversationId: delivered, senderId: mass.performerId, recipientId: fanId, body: mass.body, createdAt: at, readAt: null, price: mass.price }]);
    realtime.emitToUser(fanId, 'message/created', { conversationId: delivered, message: message! });
    await pushUnread(deps, fanId);
    await pushNotificationCount(db, realtime, fanId);
  }
  const last = recipients.at(-1) ?? mass.cursorUserId;
  const more = recipients.length === batch;
  await advanceMassMessage(db, mass.id, last, more ? null : nowIso());
  return more;
}

/** `pacing` is config.massMessages (MASS_MESSAGE_BATCH recipients a run, MASS_MESSAGE_PAUSE_MS between runs). */
export function registerMassMessageJob(queue: JobQueue, deps: MessagesDeps, pacing: MassMessagePacing): void {
  queue.register<MassJob>(JOB_MASS_MESSAGE, {
    async run(payload) {
      const more = await deliverMassBatch(deps, payload.massMessageId, pacing.batch);
      // The next batch after a pause, as a job of its own, so a long delivery survives restarts and leaves room for other work.
      if (more) await queue.enqueue(deps.db, JOB_MASS_MESSAGE, payload, { subject: `mass-message:${payload.massMessageId}`, runAt: new Date(Date.now() + pacing.pauseMs) });
    },
  });
}
