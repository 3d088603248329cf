/**
 * Where the console links a name to: a user to their row in the users list (the console's user page, with its
 * actions), a performer to their public page, an item to its own page. One place, so every table links alike.
 */
export const userHref = (username: string) => `/admin/users?q=${encodeURIComponent(username)}`;
export const performerHref = (username: string) => `/performers/${encodeURIComponent(username)}`;

/** An item's page; a photo opens its gallery. Null when it has no page (deleted, or a kind without one). */
export function itemHref(item: { type: string; _id: string; username?: string | null; parentId?: string | null }): string | null {
  const id = encodeURIComponent(item._id);
  switch (item.type) {
    case 'video':
      return `/videos/${id}`;
    case 'gallery':
      return `/galleries/${id}`;
    case 'photo':
      return item.parentId ? `/galleries/${encodeURIComponent(item.parentId)}` : null;
    case 'product':
      return `/products/${id}`;
    case 'post':
      return `/posts/${id}`;
    case 'performer':
      return item.username ? performerHref(item.username) : null;
    default:
      return null;
  }
}

/** The same URL with one query parameter set (a filter link), other filters kept, back to the first page. */
export function withParam(url: URL, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  u.searchParams.delete('offset');
  return `${u.pathname}?${u.searchParams}`;
}
