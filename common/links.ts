/**
 * The links an admin may put on the site (menus, banners, logo): a path on this site ("/videos") or an absolute
 * http(s) address. Never `javascript:`, `data:` or a protocol-relative "//host" (it would leave the site looking like
 * a path). One rule for the API's schemas (common/schemas/admin.ts) and the console's forms, so the browser
 * refuses exactly what the server would.
 */
export const LINK_MESSAGE = 'Enter a path on this site starting with "/" (like /videos) or a full address starting with https://';
export const LINK_MAX = 500;

export function isSiteLink(value: string): boolean {
  const v = value.trim();
  if (!v || v.length > LINK_MAX) return false;
  return (v.startsWith('/') && !v.startsWith('//') && !/[\s\\]/.test(v)) || /^https?:\/\/[^\s/\\]+[^\s]*$/i.test(v);
}
