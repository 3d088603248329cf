import { z } from 'zod';
import { verificationStatusSchema } from '../enums.js';
import { VERIFICATION_LEGAL_NAME_MAX, VERIFICATION_REASON_MAX } from '../verification.js';
import { keyField } from './http.js';

/** Performer identity and age verification (server/verification/README.md): what the studio sends and sees, and the console's queue. */

/** The text fields of `POST /performer/verification` (multipart, beside the three pictures). */
export const verificationFields = z.object({
  legalName: z.string().trim().min(2, 'Write your full legal name').max(VERIFICATION_LEGAL_NAME_MAX),
  dateOfBirth: z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, 'Write the date as YYYY-MM-DD'),
  country: z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'Choose the country that issued your document'),
});
export type VerificationFields = z.input<typeof verificationFields>;

/** The performer's own view: never a file, never a link to one (the pictures are for admins only). */
export const myVerificationSchema = z.object({
  /** `none`: nothing submitted yet. */
  status: z.union([verificationStatusSchema, z.literal('none')]),
  _id: z.string().nullable(),
  legalName: z.string().nullable(),
  dateOfBirth: z.string().nullable(),
  country: z.string().nullable(),
  submittedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  /** The admin's words when rejected. */
  reason: z.string().nullable(),
});
export type MyVerification = z.output<typeof myVerificationSchema>;

export const adminVerificationQuery = z.object({
  status: verificationStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
});
export type AdminVerificationQuery = z.output<typeof adminVerificationQuery>;

export const adminVerificationSchema = z.object({
  _id: z.string(),
  performer: z.object({ _id: z.string(), username: z.string(), name: z.string(), email: z.string() }),
  status: verificationStatusSchema,
  legalName: z.string(),
  dateOfBirth: z.string(),
  country: z.string(),
  submittedAt: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
  /** The pictures were deleted after the retention time (or never existed: a demo record). */
  filesDeletedAt: z.string().nullable(),
  seeded: z.boolean(),
});
export type AdminVerification = z.output<typeof adminVerificationSchema>;

/** One picture of a submission: a URL signed for the admin who asked, valid a few minutes. */
export const verificationImageSchema = z.object({
  kind: z.enum(['documentFront', 'documentBack', 'selfie']),
  url: z.string(),
  expiresAt: z.string(),
});
export const adminVerificationDetailSchema = adminVerificationSchema.extend({ images: z.array(verificationImageSchema) });
export type AdminVerificationDetail = z.output<typeof adminVerificationDetailSchema>;

export const verificationParams = z.object({ id: keyField });
export const rejectVerificationBody = z.object({ reason: z.string().trim().min(3, 'Say why, the performer reads it').max(VERIFICATION_REASON_MAX) }).strict();
export type RejectVerificationRequest = z.input<typeof rejectVerificationBody>;
