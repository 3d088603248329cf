import { countries } from 'countries-list';
import { z } from 'zod';
import { currentUserSchema, nameField, roleSchema, usernameField } from '../auth/auth.schemas.js';
import { pageQuery } from '../../common/schemas/http.js';

/** Request and response shapes of the users routes (server/users/users.routes.ts). */

export const BIO_MAX = 2000;
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
export type UpdateProfileInput = z.infer<typeof updateProfileBody>;

export const statusSchema = z.enum(['active', 'suspended', 'pending']);

export const adminUserSchema = currentUserSchema.extend({ status: statusSchema, updatedAt: z.string() });

export const userSearchQuery = pageQuery.omit({ cursor: true }).extend({
  q: z.string().trim().max(100, 'Search text must be at most 100 characters').optional(),
  role: roleSchema.optional(),
  status: statusSchema.optional(),
});

/** An account id, or a username (`GET /users/view/{id}` accepts either). */
export const userRefParams = z.object({ id: z.string().trim().min(1, 'Id is required').max(64, 'Invalid id') });
