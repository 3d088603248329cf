import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import type { EmailPreference } from '../../common/schemas/notifications.js';
import { NOTIFICATION_TYPE_LABELS } from '../../common/notification-text.js';
import { emailPreferences, seedEmailPreferences, setEmailPreference } from '../lib/stores/notifications.js';
import '../styles/notifications.css';

export interface EmailPreferencesFormProps {
  initial: EmailPreference[];
}

/** The account's email choices, one switch per notification type, saved as soon as it is flipped. */
export default function EmailPreferencesForm({ initial }: EmailPreferencesFormProps) {
  useEffect(() => seedEmailPreferences(initial), []);
  const state = useStore(emailPreferences);
  const items = state.items.length ? state.items : initial;
  return (
    <fieldset className="email-prefs" data-testid="email-preferences">
      <legend>Email me about</legend>
      {items.map((p) => (
        <label key={p.type} className="email-prefs__row">
          <input
            type="checkbox"
            checked={p.email}
            disabled={p.locked || state.saving !== null}
            onChange={(e) => void setEmailPreference(p.type, e.currentTarget.checked)}
            data-testid={`email-pref-${p.type}`}
          />
          <span>
            {NOTIFICATION_TYPE_LABELS[p.type] ?? p.type}
            {p.locked ? <span className="email-prefs__hint"> (always: these mails are about your money)</span> : null}
          </span>
        </label>
      ))}
      <p className="email-prefs__status" role="status" data-testid="email-preferences-status">
        {state.error ? <span className="form__error">{state.error}</span> : state.saving ? 'Saving…' : state.message}
      </p>
    </fieldset>
  );
}
