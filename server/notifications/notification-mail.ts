import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { JobQueue } from '../jobs/queue.js';
import { nowIso } from '../db/ids.js';
import { notificationMail } from '../mail/notification-templates.js';
import { NOTIFICATION_TYPE_LABELS } from '../../common/notification-text.js';
import { notificationTypeSchema } from '../../common/enums.js';
import { claimNotificationMail, findNotificationToMail, releaseNotificationMail } from './notifications.repository.js';
import { batchSince, choiceWantsEmail, JOB_NOTIFICATION_EMAIL, mailBatchOf, toItem } from './notifications.service.js';
import { unsubscribeHeaders, unsubscribeLinks, unsubscribeToken } from './unsubscribe.js';

/**
 * The `notification.email` job: mails one notification, enqueued with its row (notifications.service.ts). Decided when
 * it runs, from what is true then: nobody suspended, nor with an unverified address, is mailed (the account mails'
 * rule: server/auth/README.md); nor for a type they turned off since, nor for a notification already read. A
 * batch's rows (a person's messages, the comments on one item: `mailBatchOf`) get one mail: none while another unread
 * row of it was mailed in the last `BATCH_MS`. The mail is claimed on the row (`emailed_at`) before it is sent and given
 * back if sending fails, so a retried job mails once.
 */

export type NotificationMailDeps = Pick<AppContext, 'db' | 'config' | 'settings' | 'mailer'> & { logger: Logger };

export async function mailNotification(deps: NotificationMailDeps, notificationId: string): Promise<'sent' | string> {
  const { db, config } = deps;
  const row = await findNotificationToMail(db, notificationId);
  if (!row) return 'gone';
  if (row.readAt) return 'read';
  const type = notificationTypeSchema.safeParse(row.type);
  if (!type.success) return 'unknown_type';
  const email = row.email;
  if (email === null || row.status === 'suspended' || !Number(row.emailVerified)) return 'not_mailable';
  if (!choiceWantsEmail(row.type, row.emailChoice)) return 'turned_off';
  const at = nowIso();
  if (!(await claimNotificationMail(db, row, mailBatchOf(row), at, batchSince(Date.now())))) return 'batched_or_sent';
  try {
    const symbol = String(await deps.settings.get('currencySymbol'));
    const item = toItem(row, symbol);
    const links = unsubscribeLinks(config.publicUrl, config.apiBase, unsubscribeToken(config.appSecret, row.userId, type.data));
    const message = notificationMail(
      { siteName: String(await deps.settings.get('siteName')), publicUrl: config.publicUrl, currencySymbol: symbol },
      { email, name: row.displayName || (row.name ?? '') },
      { text: item.text, url: `${config.publicUrl}${item.url}`, typeLabel: NOTIFICATION_TYPE_LABELS[type.data]!, unsubscribePage: links.page, headers: unsubscribeHeaders(links.oneClick) },
    );
    await deps.mailer.send(message);
    return 'sent';
  } catch (err) {
    // Not sent: the next attempt claims it again.
    await releaseNotificationMail(db, row.id, at);
    throw err;
  }
}

export function registerNotificationMailJob(queue: JobQueue, deps: NotificationMailDeps): void {
  queue.register<{ notificationId: string }>(JOB_NOTIFICATION_EMAIL, {
    async run(payload, job) {
      const outcome = await mailNotification(deps, payload.notificationId);
      job.logger.debug({ notificationId: payload.notificationId, outcome }, 'notification mail');
    },
  });
}
