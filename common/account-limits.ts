/**
 * The account forms' limits the schemas enforce (common/schemas/auth.ts, users.ts), without zod so that the forms
 * may import them. Apart from common/limits.ts, which every page's shared chunk carries: only the account pages need these.
 */
/** A new password: 8..128 characters, with at least one letter and one digit (common/schemas/auth.ts). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** A profile's bio (common/schemas/users.ts). */
export const BIO_MAX = 2000;
