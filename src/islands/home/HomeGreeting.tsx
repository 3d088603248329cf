import { useStore } from '@nanostores/react';
import type { CurrentUser } from '../../../common/schemas/auth.js';
import { currentUser } from '../../lib/stores/user.js';
import { useMounted } from '../../lib/use-mounted.js';

export interface HomeGreetingProps {
  /** The visitor as the page was rendered for them; null on the member shell, where the header's request says who it is. */
  user: Pick<CurrentUser, 'name' | 'role'> | null;
}

/** The home feed's greeting and the visitor's own shortcuts (the studio for a performer, the console for an admin). */
export default function HomeGreeting({ user }: HomeGreetingProps) {
  const known = useStore(currentUser);
  // Hydration renders what the server rendered, even when the header's answer came in before this island woke up.
  const mounted = useMounted();
  const who = (mounted ? known : null) ?? user;
  return (
    <>
      <h1 data-testid="home-greeting">{who ? `Hello, ${who.name}` : 'Hello'}</h1>
      <nav className="form__actions" aria-label="Your pages">
        <a className="btn" href="/account/following">Following</a>
        <a className="btn" href="/account/profile">Edit profile</a>
        {who?.role === 'performer' && <a className="btn" href="/studio">Performer studio</a>}
        {who?.role === 'admin' && <a className="btn" href="/admin">Admin</a>}
      </nav>
    </>
  );
}
