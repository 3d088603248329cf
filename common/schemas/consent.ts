import { z } from 'zod';
import { coPerformerKindSchema, coPerformerObjectTypeSchema, coPerformerStatusSchema } from '../enums.js';
import { keyField } from './http.js';

/**
 * Co-performers and consent records (docs/product.md, Co-performers and consent; server/consent/): what the studio's
 * "People in this" section and the "Co-performer requests" list send and get, and the console's consent records.
 */

export const CO_PERFORMER_LEGAL_NAME_MAX = 200;
/** The most people one item may name. */
export const CO_PERFORMERS_PER_ITEM_MAX = 20;

export const coPerformerItemParams = z.object({ objectType: coPerformerObjectTypeSchema, objectId: keyField });

/** `POST /performer/co-performers/{objectType}/{objectId}`: a performer of this site, by username. */
export const nameCoPerformerBody = z
  .object({ username: z.string().trim().toLowerCase().min(1, 'Enter a username').max(100).regex(/^@?[a-z0-9_.-]+$/, 'Enter a username') })
  .strict();
export type NameCoPerformerRequest = z.input<typeof nameCoPerformerBody>;

/** The text fields of `POST /performer/co-performers/{objectType}/{objectId}/outside` (multipart, with the two files). */
export const outsidePersonFields = z.object({
  legalName: z.string().trim().min(2, 'Enter the legal name').max(CO_PERFORMER_LEGAL_NAME_MAX, `At most ${CO_PERFORMER_LEGAL_NAME_MAX} characters`),
});

const personSchema = z.object({ _id: z.string(), username: z.string(), name: z.string() });

/** One person named in an item, as its uploader (and the console) see them. Never a file's address. */
export const coPerformerSchema = z.object({
  _id: z.string(),
  kind: coPerformerKindSchema,
  /** The site performer (kind performer). */
  performer: personSchema.nullable(),
  /** The outside person's legal name (kind outside). */
  legalName: z.string().nullable(),
  status: coPerformerStatusSchema,
  hasReleaseForm: z.boolean(),
  hasIdDocument: z.boolean(),
  createdAt: z.string(),
  respondedAt: z.string().nullable(),
});
export type CoPerformer = z.output<typeof coPerformerSchema>;

/** An item's people and whether they let it be published. */
export const coPerformerListSchema = z.object({
  items: z.array(coPerformerSchema),
  /** Every person confirmed (or nobody named): the item may be published. */
  publishable: z.boolean(),
});
export type CoPerformerList = z.output<typeof coPerformerListSchema>;

/** A request to confirm, in the named performer's studio. */
export const coPerformerRequestSchema = z.object({
  _id: z.string(),
  objectType: coPerformerObjectTypeSchema,
  objectId: z.string(),
  /** The item's title (null when it is gone). */
  title: z.string().nullable(),
  /** Who named them. */
  owner: personSchema,
  status: coPerformerStatusSchema,
  createdAt: z.string(),
  respondedAt: z.string().nullable(),
});
export type CoPerformerRequest = z.output<typeof coPerformerRequestSchema>;
export const coPerformerRequestListSchema = z.object({ items: z.array(coPerformerRequestSchema) });

/** `GET /admin/consent`: every record, newest first, or one item's. */
export const adminConsentQuery = z.object({
  objectType: coPerformerObjectTypeSchema.optional(),
  objectId: keyField.optional(),
  status: coPerformerStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
});
export type AdminConsentQuery = z.output<typeof adminConsentQuery>;

const signedFileSchema = z.object({ url: z.string(), expiresAt: z.string(), name: z.string().nullable(), mime: z.string() }).nullable();

export const adminConsentRecordSchema = coPerformerSchema.extend({
  objectType: coPerformerObjectTypeSchema,
  objectId: z.string(),
  title: z.string().nullable(),
  owner: personSchema.nullable(),
  updatedAt: z.string(),
  /** Short-lived signed links (about five minutes), for this admin only. */
  releaseForm: signedFileSchema,
  idDocument: signedFileSchema,
});
export type AdminConsentRecord = z.output<typeof adminConsentRecordSchema>;
export const adminConsentListSchema = z.object({ items: z.array(adminConsentRecordSchema), total: z.number().int() });
export type AdminConsentList = z.output<typeof adminConsentListSchema>;

