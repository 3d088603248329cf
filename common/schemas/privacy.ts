import { z } from 'zod';
import { dataExportStatusSchema } from '../enums.js';
import { DELETE_CONFIRMATION } from '../privacy.js';

/** Data rights (docs/product.md, Your data; server/privacy/): the account's exports and deleting the account. */

/** One "download my data" export as its owner sees it; `downloadUrl` (short-lived, signed for the owner) once ready. */
export const dataExportSchema = z.object({
  _id: z.string(),
  status: dataExportStatusSchema,
  createdAt: z.string(),
  readyAt: z.string().nullable(),
  /** When the file is deleted (ready exports). */
  expiresAt: z.string().nullable(),
  /** Bytes of the JSON file (0 until ready). */
  size: z.number().int(),
  downloadUrl: z.string().nullable(),
  /** When the signed URL stops working (ask again for a new one). */
  downloadUrlExpiresAt: z.string().nullable(),
});
export type DataExport = z.output<typeof dataExportSchema>;

export const dataExportListSchema = z.object({ items: z.array(dataExportSchema), days: z.number().int() });
export type DataExportList = z.output<typeof dataExportListSchema>;

/** `POST /users/me/delete`: the account's password and the typed confirmation. */
export const deleteAccountBody = z
  .object({
    password: z.string().min(1, 'Enter your password').max(200),
    confirm: z.string().refine((v) => v.trim() === DELETE_CONFIRMATION, `Type ${DELETE_CONFIRMATION} to confirm`),
  })
  .strict();
export type DeleteAccountRequest = z.input<typeof deleteAccountBody>;
