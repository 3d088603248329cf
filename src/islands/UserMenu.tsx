import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import { loggedIn, logout } from '../lib/stores/auth.js';
import { currentUser, setCurrentUser, withDefaultAvatar, type UserInput } from '../lib/stores/user.js';
import CartLink from './CartLink.js';
import { ACCOUNT_LINKS } from '../lib/account-links.js';

export interface UserMenuProps {
  /** The signed-in user as the server rendered the page, or null for a guest. */
  initialUser: UserInput | null;
  /**
   * A page shown alike to every signed-in visitor (the member shell): nobody's name is in it, so the menu asks who is
   * signed in (`loadMemberHeader`) and holds the place until the answer.
   */
  member?: boolean;
}

type Link = readonly [href: string, label: string];

/** The signed-in user's pages: home, then the account's tabs but the password's. */
// The pages rarely visited (the password, your data) stay in the account's tab bar, out of the everyday menu.
const MENU_SKIPS: readonly string[] = ['/account/password', '/account/data'];
const LINKS: readonly Link[] = [['/home', 'Home'], ...ACCOUNT_LINKS.filter(([href]) => !MENU_SKIPS.includes(href))];

/** Where a role works: the studio for performers, the console for admins. */
const ROLE_LINKS: Partial<Record<UserInput['role'], Link>> = {
  performer: ['/studio', 'Studio'],
  admin: ['/admin', 'Admin'],
};

/** The menu's links for a user of `role`. */
export function menuLinks(role: UserInput['role']): Link[] {
  const own = ROLE_LINKS[role];
  return own ? [...LINKS, own] : [...LINKS];
}

/**
 * The header's actions: the cart with its count for everyone; Log in / Sign up for guests; avatar, name, links to the
 * user's own pages (and the studio or the console) and Log out for a user. The cart link is part of this island so the
 * header hydrates one island, not two (guests' JavaScript budget).
 */
export default function UserMenu({ initialUser, member = false }: UserMenuProps) {
  const storeUser = useStore(currentUser);
  const [seeded, setSeeded] = useState(false);
  const [open, setOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  // One user menu per page, so a fixed id is unique and stable for styles and tests.
  const panelId = 'user-menu-panel';

  // The server's view of the session seeds the stores once, after hydration.
  useEffect(() => {
    if (member) {
      // Loaded only here: a guest's page never downloads the member header's store (nor the badges' it seeds).
      void import('../lib/stores/member-header.js').then(({ loadMemberHeader }) => loadMemberHeader()).finally(() => setSeeded(true));
      return;
    }
    if (initialUser && currentUser.get()?._id !== initialUser._id) setCurrentUser(initialUser);
    loggedIn.set(Boolean(initialUser));
    setSeeded(true);
  }, []);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        toggle.current?.focus();
      }
    };
    document.addEventListener('mousedown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const user = seeded ? storeUser : initialUser ? withDefaultAvatar(initialUser) : null;

  if (!user && member && !seeded) {
    // Who is signed in is on its way: the cart and a place the size of the menu's button, so nothing jumps.
    return (
      <div className="user-menu" data-testid="user-menu" aria-busy="true">
        <CartLink />
        <span className="btn user-menu__toggle user-menu__pending" data-testid="user-menu-pending">
          <span className="user-menu__avatar" aria-hidden="true" />
          <span className="sr-only">Loading your account</span>
        </span>
      </div>
    );
  }

  if (!user) {
    return (
      <div className="user-menu" data-testid="user-menu">
        <CartLink />
        <a className="btn user-menu__login" href="/auth/login" data-testid="login-link">
          Log in
        </a>
        <a className="btn btn--primary" href="/auth/register" data-testid="signup-link">
          Sign up
        </a>
      </div>
    );
  }

  return (
    <div className="user-menu" data-testid="user-menu" ref={root}>
      <CartLink />
      <button
        ref={toggle}
        type="button"
        className="btn user-menu__toggle"
        aria-expanded={open}
        aria-controls={panelId}
        data-testid="user-menu-toggle"
        onClick={() => setOpen((o) => !o)}
      >
        <img
          className="user-menu__avatar"
          src={user.avatar || DEFAULT_AVATAR}
          alt=""
          width={32}
          height={32}
          onError={(e) => {
            if (!e.currentTarget.src.endsWith(DEFAULT_AVATAR)) e.currentTarget.src = DEFAULT_AVATAR;
          }}
        />
        <span className="user-menu__name" data-testid="user-name">
          {user.name}
        </span>
      </button>
      <div id={panelId} className="user-menu__panel" hidden={!open}>
        <p className="user-menu__meta">@{user.username}</p>
        {menuLinks(user.role).map(([href, label]) => (
          <a key={href} className="user-menu__item" href={href}>
            {label}
          </a>
        ))}
        <button
          type="button"
          className="user-menu__item"
          data-testid="logout"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            void logout();
          }}
        >
          {leaving ? 'Logging out…' : 'Log out'}
        </button>
      </div>
    </div>
  );
}
