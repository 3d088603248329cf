import { useEffect, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { CountryItem } from '../../common/schemas/site.js';
import type { CurrentUser } from '../../common/schemas/auth.js';
import type { UpdateProfileRequest } from '../../common/schemas/users.js';
import { BIO_MAX } from '../../common/account-limits.js';
import { account } from '../lib/stores/account.js';
import { toast } from '../lib/stores/toast.js';
import { currentUser, setCurrentUser, updateProfile, updating } from '../lib/stores/user.js';
import { Field, FormFooter } from './shared/Field.js';
import { NameField, UsernameField } from './shared/account-fields.js';
import { useFormErrors } from './shared/useFormErrors.js';
import { useFormValues } from './shared/useFormValues.js';

export interface ProfileFormProps {
  initialUser: CurrentUser;
}

const FIELDS = ['name', 'username', 'bio', 'country'] as const;

type Values = { name: string; username: string; bio: string; country: string };

function valuesOf(u: Pick<CurrentUser, 'name' | 'username' | 'bio' | 'country'>): Values {
  return { name: u.name, username: u.username, bio: u.bio ?? '', country: u.country ?? '' };
}

/** Only what changed is sent to `PUT /users`. */
export function profileChanges(before: Values, after: Values): UpdateProfileRequest {
  const changes: UpdateProfileRequest = {};
  if (after.name.trim() !== before.name) changes.name = after.name.trim();
  if (after.username.trim() !== before.username) changes.username = after.username.trim();
  if (after.bio.trim() !== before.bio) changes.bio = after.bio.trim();
  if (after.country !== before.country) changes.country = after.country;
  return changes;
}

/** Edit name, username, bio and country. */
export default function ProfileForm({ initialUser }: ProfileFormProps) {
  const busy = useStore(updating);
  const [saved, setSaved] = useState<Values>(() => valuesOf(initialUser));
  const { values, setValues, set } = useFormValues<Values>(saved);
  const [countries, setCountries] = useState<CountryItem[] | null>(null);
  const { fieldErrors, formError, clear, fail } = useFormErrors(FIELDS);

  useEffect(() => {
    if (!currentUser.get()) setCurrentUser(initialUser);
    let alive = true;
    account.countries().then(
      (list) => alive && setCountries(list),
      () => alive && setCountries([]),
    );
    return () => {
      alive = false;
    };
  }, []);


  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    clear();
    const changes = profileChanges(saved, values);
    if (Object.keys(changes).length === 0) {
      toast.info('There are no changes to save.');
      return;
    }
    try {
      const user = await updateProfile(changes);
      const next = valuesOf({ name: user.name, username: user.username, bio: user.bio ?? null, country: user.country ?? null });
      setSaved(next);
      setValues(next);
    } catch (err) {
      fail(err);
    }
  };

  // Until the list arrives, the select holds just the current value so the first render matches the server's.
  const options = countries ?? [];
  const hasCurrent = !values.country || options.some((c) => c.code === values.country);

  return (
    <form className="form" onSubmit={onSubmit} data-testid="profile-form" aria-busy={busy}>
      <NameField error={fieldErrors.name} value={values.name} onChange={set('name')} />
      <UsernameField error={fieldErrors.username} value={values.username} onChange={set('username')} />
      <Field label="Bio" error={fieldErrors.bio} hint={`${values.bio.length}/${BIO_MAX}`}>
        {(p) => <textarea {...p} name="bio" maxLength={BIO_MAX} value={values.bio} onChange={set('bio')} />}
      </Field>
      <Field label="Country" error={fieldErrors.country}>
        {(p) => (
          <select {...p} name="country" value={values.country} onChange={set('country')}>
            <option value="">Not set</option>
            {!hasCurrent ? <option value={values.country}>{values.country}</option> : null}
            {options.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormFooter error={formError} busy={busy} busyLabel="Saving…" testId="profile-submit">
        Save changes
      </FormFooter>
    </form>
  );
}
