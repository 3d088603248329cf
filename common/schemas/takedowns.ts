import { z } from 'zod';
import { takedownActionSchema, takedownRelationshipSchema, takedownStatusSchema, takedownTargetTypeSchema } from '../enums.js';
import { pageQuery } from './http.js';

/** Takedown requests (docs/product.md, Takedown requests): the public form and the console's queue. */

export const TAKEDOWN_STATEMENT_MAX = 5000;

/** `POST /takedowns`: anyone, no account. Every text is bounded so a flood cannot store megabytes. */
export const createTakedownBody = z
  .object({
    url: z.string().trim().min(1, 'The address of the content is required').max(2000, 'The address is too long'),
    name: z.string().trim().min(2, 'Your name is required').max(200, 'Your name must be at most 200 characters'),
    email: z.string().trim().max(254).email('A valid email address is required'),
    relationship: takedownRelationshipSchema,
    statement: z.string().trim().min(20, 'Please say in at least 20 characters why this should be removed').max(TAKEDOWN_STATEMENT_MAX, `At most ${TAKEDOWN_STATEMENT_MAX} characters`),
    declaration: z.literal(true, { error: 'Please confirm the declaration' }),
    captchaToken: z.string().max(4000).optional(),
  })
  .strict();
export type CreateTakedownRequest = z.input<typeof createTakedownBody>;

/** What the requester learns: a reference for their mails, nothing about the item or other requests. */
export const takedownReceiptSchema = z.object({ reference: z.string(), status: z.literal('received') });
export type TakedownReceipt = z.output<typeof takedownReceiptSchema>;

export const adminTakedownQuery = pageQuery.extend({ status: takedownStatusSchema.default('open') });
export type AdminTakedownQuery = z.output<typeof adminTakedownQuery>;

export const adminTakedownRequestSchema = z.object({
  _id: z.string(),
  reference: z.string(),
  name: z.string(),
  email: z.string(),
  relationship: takedownRelationshipSchema,
  statement: z.string(),
  url: z.string(),
  createdAt: z.string(),
});

/** One item of the queue with every request filed against it (one open case per item). */
export const adminTakedownCaseSchema = z.object({
  targetType: takedownTargetTypeSchema,
  targetId: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  itemStatus: z.string(),
  /** The status the item had before the takedown hid it (restore puts it back); null when nothing was hidden. */
  previousStatus: z.string().nullable(),
  status: takedownStatusSchema,
  firstAt: z.string(),
  overdue: z.boolean(),
  resolvedAt: z.string().nullable(),
  requests: z.array(adminTakedownRequestSchema),
});
export type AdminTakedownCase = z.output<typeof adminTakedownCaseSchema>;
export const adminTakedownListSchema = z.object({ items: z.array(adminTakedownCaseSchema), total: z.number(), open: z.number(), overdue: z.number() });
export type AdminTakedownList = z.output<typeof adminTakedownListSchema>;

export const takedownCaseParams = z.object({ targetType: takedownTargetTypeSchema, targetId: z.string().min(1).max(64) });
export const resolveTakedownBody = z.object({ action: takedownActionSchema, note: z.string().trim().max(1000).optional() }).strict();
export const resolveTakedownResultSchema = z.object({ targetType: takedownTargetTypeSchema, targetId: z.string(), status: takedownStatusSchema, itemStatus: z.string().nullable(), resolved: z.number() });
