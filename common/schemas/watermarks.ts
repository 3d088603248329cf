import { z } from 'zod';
import { watermarkPositionSchema, watermarkRunStatusSchema } from '../enums.js';

/** Watermarks (docs/product.md, Watermarks): the console's settings and the runs that re-process the catalogue. */

export const watermarkSettingsSchema = z.object({
  watermarkEnabled: z.boolean(),
  watermarkPosition: watermarkPositionSchema,
  /** Percent. */
  watermarkOpacity: z.number().int(),
});
export type WatermarkSettings = z.output<typeof watermarkSettingsSchema>;

export const watermarkSettingsBody = z
  .object({
    watermarkEnabled: z.boolean(),
    watermarkPosition: watermarkPositionSchema,
    watermarkOpacity: z.number().int('Whole percent only').min(10, 'The opacity is at least 10 %').max(100, 'The opacity is at most 100 %'),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Send at least one setting');
export type WatermarkSettingsBody = z.input<typeof watermarkSettingsBody>;

export const watermarkRunSchema = z.object({
  _id: z.string(),
  status: watermarkRunStatusSchema,
  /** The settings the run applies. */
  enabled: z.boolean(),
  position: watermarkPositionSchema,
  opacity: z.number(),
  /** Items in the run: the catalogue's size when it started, exact once it has walked all of it (`paged`). */
  total: z.number(),
  done: z.number(),
  failed: z.number(),
  queued: z.number(),
  paged: z.boolean(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type WatermarkRun = z.output<typeof watermarkRunSchema>;

export const watermarkOverviewSchema = z.object({
  settings: watermarkSettingsSchema,
  /** The latest runs, newest first. */
  runs: z.array(watermarkRunSchema),
});
export type WatermarkOverview = z.output<typeof watermarkOverviewSchema>;

export const watermarkStartSchema = watermarkOverviewSchema.extend({
  /** The run now applying the settings (null when nothing needed one), and whether this request started it. */
  runId: z.string().nullable(),
  started: z.boolean(),
});

export const watermarkRunParams = z.object({ id: z.string().min(1).max(64) });
