import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { CoPerformerObjectType } from '../../../common/enums.js';
import type { CoPerformer } from '../../../common/schemas/consent.js';
import { createCoPerformers } from '../../lib/stores/co-performers.js';
import { FieldError } from '../shared/Field.js';

/**
 * "People in this": everyone shown in a video, gallery or post, named by its performer (docs/product.md,
 * Co-performers and consent). A performer of this site is named by username and confirms in their own studio; an
 * outside person by legal name with their signed release form and identity document. Until everybody has confirmed,
 * the item cannot be published. Part of the studio's inline editor, so it only ever renders in the browser, after
 * the editor was opened: it loads its list then.
 */
export default function CoPerformers({ objectType, objectId }: { objectType: CoPerformerObjectType; objectId: string }) {
  const [section] = useState(() => createCoPerformers(objectType, objectId));
  const { items, publishable, loaded, busy, error, fieldErrors } = useStore(section.store);
  const [mode, setMode] = useState<'performer' | 'outside'>('performer');
  const outsideForm = useRef<HTMLFormElement>(null);
  useEffect(() => void section.load(), [section]);

  const onName = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const username = String(new FormData(form).get('username') ?? '').trim();
    if (username && (await section.nameSitePerformer(username))) form.reset();
  };
  const onOutside = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (await section.addOutsidePerson(new FormData(event.currentTarget))) outsideForm.current?.reset();
  };
  const idp = `cp-${objectType}-${objectId}`;

  return (
    <section className="co-performers" data-testid="co-performers" aria-labelledby={`${idp}-title`}>
      <h3 id={`${idp}-title`}>People in this</h3>
      <p className="form__hint">Name everyone else who appears. Until each of them has confirmed, this stays unpublished.</p>
      {loaded && items.length > 0 ? (
        <ul className="co-performers__list">
          {items.map((p) => (
            <li key={p._id} className="co-performers__item" data-testid="co-performer" data-status={p.status}>
              <span className="co-performers__who">{who(p)}</span>
              <span className={`co-performers__state is-${p.status}`} data-testid="co-performer-status">{STATE_WORDS[p.status]}</span>
              <button type="button" className="btn btn--link" disabled={busy} onClick={() => void section.remove(p._id)} data-testid="co-performer-remove">Remove</button>
            </li>
          ))}
        </ul>
      ) : loaded ? <p className="form__hint" data-testid="co-performers-none">Nobody else is named.</p> : null}
      {loaded && !publishable ? <p className="form__error" data-testid="co-performers-blocked">Waiting for confirmation: this stays a draft until everyone has confirmed (publish it again after that; reload to see its status).</p> : null}

      <div className="co-performers__tabs" role="group" aria-label="Who to add">
        <button type="button" className={`btn${mode === 'performer' ? ' btn--primary' : ''}`} aria-pressed={mode === 'performer'} onClick={() => setMode('performer')}>A performer here</button>
        <button type="button" className={`btn${mode === 'outside' ? ' btn--primary' : ''}`} aria-pressed={mode === 'outside'} onClick={() => setMode('outside')} data-testid="co-performer-outside-tab">Someone else</button>
      </div>
      {mode === 'performer' ? (
        <form className="form co-performers__form" onSubmit={onName} noValidate data-testid="co-performer-name-form">
          <div className="form__field">
            <label htmlFor={`${idp}-user`}>Their username</label>
            <input id={`${idp}-user`} name="username" autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={100} placeholder="@username" data-testid="co-performer-username" />
            <FieldError message={fieldErrors.username ?? null} />
          </div>
          <button type="submit" className="btn" disabled={busy} data-testid="co-performer-add">Ask them to confirm</button>
        </form>
      ) : (
        <form ref={outsideForm} className="form co-performers__form" onSubmit={onOutside} noValidate data-testid="co-performer-outside-form">
          <div className="form__field">
            <label htmlFor={`${idp}-name`}>Legal name</label>
            <input id={`${idp}-name`} name="legalName" autoComplete="off" maxLength={200} />
            <FieldError message={fieldErrors.legalName ?? null} />
          </div>
          <div className="form__field">
            <label htmlFor={`${idp}-release`}>Signed release form (PDF or picture)</label>
            <input id={`${idp}-release`} name="releaseForm" type="file" accept="application/pdf,image/*" />
            <FieldError message={fieldErrors.releaseForm ?? null} />
          </div>
          <div className="form__field">
            <label htmlFor={`${idp}-id`}>Identity document (picture)</label>
            <input id={`${idp}-id`} name="idDocument" type="file" accept="image/*" />
            <FieldError message={fieldErrors.idDocument ?? null} />
          </div>
          <p className="form__hint">Kept private: only the site's admins can open these files.</p>
          <button type="submit" className="btn" disabled={busy} data-testid="co-performer-outside-add">Add</button>
        </form>
      )}
      <FieldError message={error} />
    </section>
  );
}

const STATE_WORDS = { pending: 'Waiting for them', confirmed: 'Confirmed', declined: 'Declined' } as const;

function who(p: CoPerformer): string {
  if (p.kind === 'performer') return p.performer ? `${p.performer.name} (@${p.performer.username})` : 'A performer';
  return `${p.legalName ?? 'Outside person'} (release and ID on file)`;
}
