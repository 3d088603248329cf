import { noQuery } from '../../../common/schemas/http.js';
import type { ApiApp } from '../../http/types.js';
import { adminTx, errors } from '../../admin/admin.http.js';
import { notFound } from '../../http/errors.js';
import { settingDefs, type SettingKey } from '../../settings/settings.defaults.js';
import { upsertSetting } from '../../settings/settings.repository.js';
import { announceSettingsChange } from '../../admin/settings-sync.js';
import { watermarkOverviewSchema, watermarkRunParams, watermarkRunSchema, watermarkSettingsBody, watermarkStartSchema } from '../../../common/schemas/watermarks.js';
import { changeNeedsRun, markSettings, startWatermarkRun, watermarkOverview, watermarkRun } from './watermark.service.js';

/**
 * The console's watermarks, in the admin group (admins only, every change audited: adminTx): the settings, whose change
 * starts a run re-processing the catalogue in the same transaction, a run started by hand, and a run's progress.
 */
export async function adminWatermarkRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const tags = ['admin'];

  app.get(
    '/admin/watermarks',
    { schema: { tags, summary: 'Watermark settings and the latest watermark runs with their progress (done, failed, queued of total)', response: { 200: watermarkOverviewSchema, ...errors } } },
    async () => {
      ctx.settings.invalidate();
      return watermarkOverview(ctx);
    },
  );

  app.put(
    '/admin/settings/watermark',
    {
      schema: {
        tags,
        summary: 'Change the watermark settings; turning it on or off, or moving it, starts a run that re-processes the catalogue from the originals',
        body: watermarkSettingsBody,
        response: { 200: watermarkStartSchema, ...errors },
      },
    },
    async (request) => {
      ctx.settings.invalidate();
      const before = await markSettings(ctx.settings);
      const after = {
        enabled: request.body.watermarkEnabled ?? before.enabled,
        position: request.body.watermarkPosition ?? before.position,
        opacity: request.body.watermarkOpacity ?? before.opacity,
      };
      const result = await adminTx(ctx.db, request, async (trx, audit) => {
        for (const [key, value] of Object.entries(request.body)) {
          const def = settingDefs[key as SettingKey];
          await upsertSetting(trx, key, value, def.group, def.public);
        }
        const run = changeNeedsRun(before, after) ? await startWatermarkRun(ctx, trx, after, request.user!.id) : null;
        await audit('settings.watermark.update', 'settings', null, { values: request.body, runId: run?.runId ?? null });
        return run;
      });
      ctx.settings.invalidate();
      announceSettingsChange(ctx);
      ctx.jobs.wake();
      return { ...(await watermarkOverview(ctx)), runId: result?.runId ?? null, started: result?.started ?? false };
    },
  );

  app.post(
    '/admin/watermarks/runs',
    {
      schema: {
        tags,
        summary: 'Run the current watermark settings over the catalogue again (e.g. after failures); while a run with the same settings runs, answers that one (started: false)',
        querystring: noQuery,
        response: { 200: watermarkStartSchema, ...errors },
      },
    },
    async (request) => {
      ctx.settings.invalidate();
      const wanted = await markSettings(ctx.settings);
      const run = await adminTx(ctx.db, request, async (trx, audit) => {
        const started = await startWatermarkRun(ctx, trx, wanted, request.user!.id);
        await audit('watermark.run.start', 'watermark_run', started.runId, { ...wanted, started: started.started });
        return started;
      });
      ctx.jobs.wake();
      return { ...(await watermarkOverview(ctx)), runId: run.runId, started: run.started };
    },
  );

  app.get(
    '/admin/watermarks/runs/:id',
    { schema: { tags, summary: "One watermark run's progress", params: watermarkRunParams, response: { 200: watermarkRunSchema, ...errors } } },
    async (request) => {
      const run = await watermarkRun(ctx.db, request.params.id);
      if (!run) throw notFound('Watermark run');
      return run;
    },
  );
}
