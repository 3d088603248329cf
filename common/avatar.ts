/** The picture of an account without an avatar (public/no-avatar.png); no zod here, every page's header imports it. */
export const DEFAULT_AVATAR = '/no-avatar.png';
