import { z } from 'zod';
import { reportActionSchema, reportOutcomeSchema, reportReasonSchema, reportStatusSchema, reportTargetTypeSchema } from '../enums.js';
import { REPORT_DETAILS_MAX_LENGTH } from '../reports.js';
import { keyField, listSchema } from './http.js';
import { personRef } from './admin.js';

/** Reports (docs/product.md, Reports; server/reports/): what a reporter sends and gets, and the console's queue. */

/** `POST /reports`: what is reported, why, and optionally in the reporter's words. */
export const createReportBody = z
  .object({
    targetType: reportTargetTypeSchema,
    targetId: keyField,
    reason: reportReasonSchema,
    details: z.string().trim().max(REPORT_DETAILS_MAX_LENGTH).optional(),
  })
  .strict();
export type CreateReportRequest = z.input<typeof createReportBody>;

export const reportSchema = z.object({
  _id: z.string(),
  targetType: reportTargetTypeSchema,
  targetId: z.string(),
  reason: reportReasonSchema,
  details: z.string().nullable(),
  status: reportStatusSchema,
  createdAt: z.string(),
});
export type Report = z.output<typeof reportSchema>;

/** `GET /admin/reports`: the queue, one entry per reported target; `status` open (oldest first) or resolved (newest first). */
export const adminReportQuery = z.object({
  status: reportStatusSchema.default('open'),
  targetType: reportTargetTypeSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
});
export type AdminReportQuery = z.output<typeof adminReportQuery>;

export const adminReportSchema = z.object({
  _id: z.string(),
  reporter: personRef,
  reason: reportReasonSchema,
  details: z.string().nullable(),
  createdAt: z.string(),
  outcome: reportOutcomeSchema.nullable(),
  resolvedAt: z.string().nullable(),
  resolvedBy: personRef,
});
export type AdminReport = z.output<typeof adminReportSchema>;

/** One message of a reported message's conversation, as the console shows it around the reported one. */
export const reportThreadLineSchema = z.object({
  _id: z.string(),
  sender: personRef,
  /** The whole text (the reported one is judged by it). */
  text: z.string(),
  /** How many pictures or videos it carries. */
  attachments: z.number().int(),
  createdAt: z.string(),
  /** The reported message itself. */
  reported: z.boolean(),
});
export type ReportThreadLine = z.output<typeof reportThreadLineSchema>;

/** The reports of one target with the target by name: what it is, where it is, whose account a suspension would end. */
export const adminReportGroupSchema = z.object({
  targetType: reportTargetTypeSchema,
  targetId: z.string(),
  target: z.object({
    /** Its title (a comment's first words, a performer's name); null once it is gone. */
    title: z.string().nullable(),
    /** Its page on the site (a comment's: its object's page; a message's: its conversation); null when it has none. */
    url: z.string().nullable(),
    /** The account behind it: the performer of an item, the performer themself, a comment's or a message's author. */
    owner: personRef,
    /** Its status now (`hidden`, `suspended`, `deleted`…). */
    status: z.string(),
  }),
  status: reportStatusSchema,
  count: z.number().int(),
  /** The oldest report of the group: its age decides `overdue` (open for more than REPORT_OVERDUE_DAYS). */
  firstAt: z.string(),
  lastAt: z.string(),
  overdue: z.boolean(),
  /**
   * A reported direct message in its conversation: a few messages before and after it, oldest first, so the admin can
   * judge it here (the whole conversation is at `target.url`). Null for other kinds and once the message is gone.
   */
  thread: z.array(reportThreadLineSchema).nullable(),
  /** What an admin may do with it (`remove` is not offered for a performer: suspending is how a performer goes). */
  actions: z.array(reportActionSchema),
  reports: z.array(adminReportSchema),
});
export type AdminReportGroup = z.output<typeof adminReportGroupSchema>;
export const adminReportListSchema = listSchema(adminReportGroupSchema).extend({ open: z.number().int(), overdue: z.number().int() });
export type AdminReportList = z.output<typeof adminReportListSchema>;

export const reportTargetParams = z.object({ targetType: reportTargetTypeSchema, targetId: keyField });
/** `POST /admin/reports/{targetType}/{targetId}/resolve`. */
export const resolveReportsBody = z.object({ action: reportActionSchema, note: z.string().trim().max(500).optional() }).strict();
export type ResolveReportsRequest = z.input<typeof resolveReportsBody>;
export const resolveReportsResultSchema = z.object({
  targetType: reportTargetTypeSchema,
  targetId: z.string(),
  outcome: reportOutcomeSchema,
  /** How many open reports the action resolved (each reporter was told). */
  resolved: z.number().int(),
});
export type ResolveReportsResult = z.output<typeof resolveReportsResultSchema>;
