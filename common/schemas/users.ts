import { countries } from 'countries-list';
import { z } from 'zod';
import { accountStatusSchema, roleSchema } from '../enums.js';
import { BIO_MAX } from '../account-limits.js';
import { pageQuery } from './http.js';
import { currentUserSchema, nameField, usernameField } from './auth.js';

/** Request and response shapes of the users routes (server/users/users.routes.ts). */

export const COUNTRY_MESSAGE = 'Country must be a two-letter ISO 3166 country code, e.g. "US"';

/** ISO 3166-1 alpha-2 code known to countries-list (the same list `GET /countries/list` serves), upper-cased; "" or null clears it. */
export const countryField = z
  .string({ error: COUNTRY_MESSAGE })
  .trim()
  .toUpperCase()
  .refine((c) => c === '' || Object.hasOwn(countries, c), COUNTRY_MESSAGE)
  .transform((c) => c || null)
  .nullable();

/** Free text; blank or null clears it. */
export const bioField = z
  .string({ error: 'Bio must be text' })
  .trim()
  .max(BIO_MAX, `Bio must be at most ${BIO_MAX} characters`)
  .transform((b) => b || null)
  .nullable();

/** `PUT /users`: every field optional; only the fields sent change. Unknown fields (email, role...) are ignored. */
export const updateProfileBody = z.object({
  name: nameField.optional(),
  username: usernameField.optional(),
  bio: bioField.optional(),
  country: countryField.optional(),
});
export type UpdateProfileRequest = z.input<typeof updateProfileBody>;
export type UpdateProfileInput = z.output<typeof updateProfileBody>;

/** `GET /users/search` (admins): the account with its status. */
export const adminUserSchema = currentUserSchema.extend({ status: accountStatusSchema, updatedAt: z.string() });
export type AdminUser = z.output<typeof adminUserSchema>;

export const userSearchQuery = pageQuery.omit({ cursor: true }).extend({
  q: z.string().trim().max(100, 'Search text must be at most 100 characters').optional(),
  role: roleSchema.optional(),
  status: accountStatusSchema.optional(),
});

/** An account id, or a username (`GET /users/view/{id}` accepts either). */
export const userRefParams = z.object({ id: z.string().trim().min(1, 'Id is required').max(64, 'Invalid id') });
