import { useState } from 'react';
import { useStore } from '@nanostores/react';
import type { MessagePolicy } from '../../../common/enums.js';
import type { BlockedFan } from '../../../common/schemas/messages.js';
import { createMessagingSettings } from '../../lib/stores/messages.js';

const choices: Array<[MessagePolicy, string, string]> = [
  ['subscribers', 'Subscribers', 'Fans with a running subscription may write to you first.'],
  ['fans', 'Everyone', 'Any signed-in fan may write to you first.'],
  ['nobody', 'Nobody', 'Nobody writes first; you can still write to fans who follow or subscribe to you, and answer.'],
];

/** Performer studio: who may write first (PUT /performer/message-settings) and the fans blocked, each with Unblock. */
export default function StudioMessaging({ initial }: { initial: { messagePolicy: MessagePolicy; blocked: BlockedFan[] } }) {
  const [settings] = useState(() => createMessagingSettings(initial));
  const { messagePolicy, blocked, saving } = useStore(settings.store);
  return (
    <>
      <section className="studio-panel" aria-labelledby="message-policy-heading" data-testid="studio-message-policy">
        <h2 id="message-policy-heading">Who may message you first</h2>
        <fieldset className="form" disabled={saving}>
          <legend className="sr-only">Who may message you first</legend>
          {choices.map(([value, label, hint]) => (
            <label key={value} className="choice">
              <input type="radio" name="messagePolicy" value={value} checked={messagePolicy === value} onChange={() => void settings.setPolicy(value)} data-testid={`message-policy-${value}`} />
              <span><strong>{label}</strong> <span className="form__hint">{hint}</span></span>
            </label>
          ))}
        </fieldset>
      </section>
      <section className="studio-panel" aria-labelledby="blocked-heading" data-testid="studio-blocked">
        <h2 id="blocked-heading">Blocked fans</h2>
        <p className="form__hint">A blocked fan cannot message you, comment on your posts, videos and galleries, or start a new subscription. A subscription already running is kept until it ends.</p>
        {blocked.length === 0 ? <p className="empty" data-testid="blocked-empty">You have not blocked anyone.</p> : null}
        <ul className="blocked-list">
          {blocked.map((b) => (
            <li key={b._id} data-testid="blocked-fan">
              <img src={b.avatar} alt="" width="32" height="32" className="inbox__avatar" />
              <span>{b.name} <span className="form__hint">@{b.username}</span></span>
              <button type="button" className="btn" onClick={() => void settings.unblock(b._id)} data-testid="unblock">Unblock</button>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
