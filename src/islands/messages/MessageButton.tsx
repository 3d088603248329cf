import { useState } from 'react';
import { openConversationWith } from '../../lib/stores/messages.js';

export interface MessageButtonProps {
  performerId: string;
  allowed: boolean;
  /** Why not, shown under a disabled button. */
  reason: string | null;
  conversationId: string | null;
}

/** "Message" beside Follow on a performer's page: opens the conversation, or says why the fan may not write. */
export default function MessageButton({ performerId, allowed, reason, conversationId }: MessageButtonProps) {
  const [pending, setPending] = useState(false);
  if (conversationId) {
    return <a className="btn" href={`/messages/${conversationId}`} data-testid="message-button">Message</a>;
  }
  if (!allowed) {
    return (
      <span className="message-button">
        <button type="button" className="btn" disabled aria-describedby="message-why-not" data-testid="message-button">Message</button>
        <span id="message-why-not" className="form__hint" data-testid="message-why-not">{reason}</span>
      </span>
    );
  }
  return (
    <button
      type="button"
      className="btn"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        await openConversationWith(performerId);
        setPending(false);
      }}
      data-testid="message-button"
    >
      Message
    </button>
  );
}
