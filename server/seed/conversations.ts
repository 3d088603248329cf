import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import { ensureConversation, insertMessage, markRead, massAudiencePage, setMessagePolicy, touchConversation } from '../messages/messages.repository.js';
import { notifyMessage } from '../messages/messages.service.js';
import { conversationScripts } from './content.js';
import { DAY_MS } from '../../common/time.js';

/**
 * The demo's direct messages: the demo performer talks with the demo fan and a few subscribers, so the inbox, the
 * studio's messages and the unread badge have something in them. Rows go through the messages repository, as a sent
 * message does; everything is read but each conversation's last line, which is unread for its recipient and has the
 * recipient's notification, so the badge and the bell agree. Text only: a message's files are private uploads and
 * the demo has none to give.
 */

type Trx = Transaction<Database>;

export interface DemoCorrespondent {
  id: string;
  name: string;
}

/** Writes the conversations; answers how many messages it wrote. */
export async function seedConversations(trx: Trx, input: { performer: DemoCorrespondent; fans: DemoCorrespondent[]; now: number }): Promise<number> {
  // The demo performer takes messages from any signed-in fan, so the demo fan (no subscription) can write and answer.
  await setMessagePolicy(trx, input.performer.id, 'fans');
  let written = 0;
  for (const [i, fan] of input.fans.entries()) {
    const script = conversationScripts[i % conversationScripts.length]!;
    // Each conversation a day older than the one before, its lines twenty minutes apart.
    const startsAt = input.now - (i + 1) * DAY_MS;
    const at = (line: number) => nowIso(new Date(startsAt + line * 20 * 60_000));
    const conversation = await ensureConversation(trx, { id: newId(), fanId: fan.id, performerId: input.performer.id, createdAt: at(0), lastMessageAt: at(0), lastMessageId: null });
    let last = { id: '', at: at(0) };
    for (const [line, [who, text]] of script.entries()) {
      const [sender, recipient] = who === 'fan' ? [fan, input.performer] : [input.performer, fan];
      last = { id: newId(), at: at(line) };
      if (line === script.length - 1) {
        // What came before has been read by both; the last line waits for its recipient.
        await markRead(trx, conversation.id, fan.id, at(line));
        await markRead(trx, conversation.id, input.performer.id, at(line));
        await notifyMessage(trx, recipient.id, { conversationId: conversation.id, messageId: last.id, actorId: sender.id, actorName: sender.name }, { email: false });
      }
      await insertMessage(trx, { id: last.id, conversationId: conversation.id, senderId: sender.id, recipientId: recipient.id, body: text, massMessageId: null, createdAt: last.at });
      written++;
    }
    await touchConversation(trx, conversation.id, last.id, last.at);
  }
  return written;
}

/** The demo fan and the first live subscribers of the performer (besides the demo fan), as many as there are scripts. */
export async function demoCorrespondents(trx: Trx, performerId: string, fan: DemoCorrespondent, names: ReadonlyMap<string, string>, now: number): Promise<DemoCorrespondent[]> {
  const subscribers = await massAudiencePage(trx, performerId, 'subscribers', nowIso(new Date(now)), '', conversationScripts.length);
  const others = subscribers.filter((id) => id !== fan.id).map((id) => ({ id, name: names.get(id) ?? 'A fan' }));
  return [fan, ...others].slice(0, conversationScripts.length);
}
