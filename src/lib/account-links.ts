/** The account's pages, in the order of their tabs (src/components/AccountNav.astro) and of the user menu (UserMenu). */
export const ACCOUNT_LINKS = [
  ['/account/subscriptions', 'Subscriptions'],
  ['/account/following', 'Following'],
  ['/account/orders', 'Orders'],
  ['/account/transactions', 'Transactions'],
  ['/account/favourites', 'Favourites'],
  ['/account/watch-later', 'Watch later'],
  ['/account/notifications', 'Notifications'],
  ['/account/profile', 'Profile'],
  ['/account/password', 'Password'],
  ['/account/data', 'Your data'],
] as const satisfies ReadonlyArray<readonly [href: string, label: string]>;
