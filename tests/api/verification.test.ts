import fsp from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createSession, createUser, type TestUser } from '../helpers/sessions.js';
import { postForm, type FilePart } from '../helpers/uploads.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { JOB_VERIFICATION_RETENTION } from '../../server/verification/verification.service.js';

/**
 * Identity and age verification (server/verification/README.md): the studio's submission and its checks, the
 * pictures open for admins only through short-lived signed URLs, the review (approve, reject with a reason,
 * resubmit), the one approval gate (the console's toggle needs a verified identity), the mails both ways, and the
 * retention job that deletes the pictures a set number of days after the decision.
 */
describe.each(engines)('performer verification on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let fan: TestUser;
  let other: TestUser;
  let jpeg: Buffer;
  let png: Buffer;
  let gif: Buffer;
  const call = (method: string, p: string, who: TestUser | undefined, json?: unknown) => t.api(p, { method, headers: who?.headers, ...(json !== undefined ? { json } : {}) });
  const newPerformer = (name: string) => createUser(t.ctx.db, 'performer', { name, performer: { approved: 0 } });
  const adult = '1990-05-17';
  const fields = (o: Record<string, string> = {}) => ({ legalName: 'Jane Q. Example', dateOfBirth: adult, country: 'DE', ...o });
  const pictures = (o: Partial<Record<'documentFront' | 'documentBack' | 'selfie', FilePart | null>> = {}): FilePart[] =>
    (['documentFront', 'documentBack', 'selfie'] as const)
      .map((name) => (name in o ? o[name] : { name, filename: `${name}.jpg`, data: jpeg, type: 'image/jpeg' }))
      .filter((f): f is FilePart => Boolean(f));
  const submit = (who: TestUser, f = fields(), files = pictures()) => postForm(t, '/performer/verification', { fields: f, files }, { headers: who.headers });
  const rows = (performerId: string) => t.ctx.db.selectFrom('performerVerifications').selectAll().where('performerId', '=', performerId).orderBy('submittedAt').execute();
  const storedKeys = async () => {
    const dir = path.join(t.config.mediaDir, 'private', 'verification');
    return (await fsp.readdir(dir).catch(() => [] as string[])).sort();
  };
  /** The outbox's mails (SMTP_URL is not set in tests), once every queued one is written. */
  const outbox = async () => {
    await t.ctx.mailer.flush();
    const dir = path.join(t.config.dataDir, 'outbox');
    const names = (await fsp.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
    return Promise.all(names.map(async (n) => ({ ...JSON.parse(await fsp.readFile(path.join(dir, n), 'utf8')), eml: await fsp.readFile(path.join(dir, n.replace(/\.json$/, '.eml')), 'utf8') })));
  };
  const media = (url: string, who?: TestUser) => fetch(`${t.url}${url}`, { headers: who?.headers ?? {} });

  beforeAll(async () => {
    t = await startTestApp(engine);
    admin = await createUser(t.ctx.db, 'admin', { name: 'Ada Admin' });
    fan = await createUser(t.ctx.db, 'user');
    other = await createUser(t.ctx.db, 'performer', { name: 'Other Performer' });
    // A JPEG carrying EXIF (a camera's make and a GPS-like comment), to see it dropped.
    jpeg = await sharp({ create: { width: 64, height: 40, channels: 3, background: { r: 30, g: 90, b: 160 } } })
      .jpeg()
      .withMetadata({ exif: { IFD0: { Make: 'SpyPhone', ImageDescription: 'GPS 52.52N 13.40E' } } })
      .toBuffer();
    png = await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 200, g: 90, b: 10 } } }).png().toBuffer();
    gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } }).gif().toBuffer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('refuses an under-18 date of birth, a missing picture, a wrong type and a bad country with a clear 400, storing nothing', async () => {
    const perf = await newPerformer('Young One');
    const today = new Date();
    const eighteenToday = `${today.getUTCFullYear() - 18}-${String(today.getUTCMonth() + 1).padStart(2, '0')}-${String(today.getUTCDate()).padStart(2, '0')}`;
    // Eighteen today is old enough; one day short is not.
    const dayBefore = new Date(Date.UTC(today.getUTCFullYear() - 18, today.getUTCMonth(), today.getUTCDate() + 1)).toISOString().slice(0, 10);
    const young = await submit(perf, fields({ dateOfBirth: dayBefore }));
    expect(young.status, JSON.stringify(young.body)).toBe(400);
    expect(young.body.code).toBe('UNDER_AGE');
    expect(young.body.message).toMatch(/18 or older/);
    const missing = await submit(perf, fields(), pictures({ selfie: null }));
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ path: 'selfie', message: 'Add this picture' }]);
    const wrongType = await submit(perf, fields(), pictures({ documentBack: { name: 'documentBack', filename: 'back.jpg', data: gif, type: 'image/jpeg' } }));
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('UNSUPPORTED_MEDIA');
    const pdf = await submit(perf, fields(), pictures({ documentFront: { name: 'documentFront', filename: 'id.png', data: Buffer.from('%PDF-1.4\n%%EOF\n'), type: 'image/png' } }));
    expect(pdf.status).toBe(400);
    expect(pdf.body.code).toBe('UNSUPPORTED_MEDIA');
    expect((await submit(perf, fields({ country: 'XX' }))).status).toBe(400);
    expect((await submit(perf, fields({ dateOfBirth: '1990-02-30' }))).status).toBe(400);
    expect((await submit(perf, fields({ legalName: '' }))).status).toBe(400);
    expect(await rows(perf.id)).toEqual([]);
    expect(await storedKeys()).toEqual([]);
    // Fans, admins and guests have no studio verification.
    expect((await submit(fan)).status).toBe(403);
    expect((await submit(admin)).status).toBe(403);
    expect((await call('GET', '/performer/verification', undefined)).status).toBe(401);

    const ok = await submit(perf, fields({ dateOfBirth: eighteenToday }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ status: 'pending', dateOfBirth: eighteenToday, country: 'DE', legalName: 'Jane Q. Example' });
  });

  it('stores the pictures privately without EXIF, mails the admins, and answers 409 while one waits', async () => {
    const perf = await newPerformer('Pia Pending');
    const before = (await outbox()).length;
    const res = await submit(perf, fields({ country: 'fr' }), pictures({ documentBack: { name: 'documentBack', filename: 'b.png', data: png, type: 'image/png' } }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', country: 'FR', reason: null });
    expect(JSON.stringify(res.body)).not.toMatch(/media|url/i);
    const [row] = await rows(perf.id);
    const files = await t.ctx.db.selectFrom('files').selectAll().where('id', 'in', [row!.documentFrontFileId!, row!.documentBackFileId!, row!.selfieFileId!]).execute();
    expect(files).toHaveLength(3);
    for (const f of files) {
      expect(f.storageKey).toMatch(/^private\/verification\//);
      expect(f.ownerId).toBe(perf.id);
    }
    const front = files.find((f) => f.id === row!.documentFrontFileId)!;
    const stored = await fsp.readFile(path.join(t.config.mediaDir, front.storageKey));
    expect(jpeg.includes(Buffer.from('SpyPhone'))).toBe(true);
    expect(stored.includes(Buffer.from('SpyPhone'))).toBe(false);
    expect((await sharp(stored).metadata()).exif).toBeUndefined();

    const mails = (await outbox()).slice(before);
    const toAdmin = mails.filter((m) => m.template === 'verification-submitted');
    expect(toAdmin.map((m) => m.to)).toEqual([admin.email]);
    expect(toAdmin[0].subject).toContain(`@${perf.username}`);
    expect(toAdmin[0].links.review).toBe(`${t.url}/admin/verifications?id=${row!.id}`);
    // The mail names the performer, not their legal name or date of birth.
    expect(toAdmin[0].eml).not.toContain('Jane Q. Example');

    const again = await submit(perf);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('VERIFICATION_PENDING');
    expect(await rows(perf.id)).toHaveLength(1);
  });

  it('opens the pictures for admins only: not for the performer, another performer, a fan or a guest; not replayed, not expired', async () => {
    const perf = await newPerformer('Sam Secret');
    expect((await submit(perf)).status).toBe(201);
    const [row] = await rows(perf.id);
    const mine = await call('GET', '/performer/verification', perf);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ status: 'pending', _id: row!.id });
    expect(JSON.stringify(mine.body)).not.toContain(row!.documentFrontFileId!);
    // Another performer sees their own (approved, seeded) state, nothing of this one.
    const theirs = await call('GET', '/performer/verification', other);
    expect(theirs.body.status).toBe('approved');
    expect(theirs.body._id).not.toBe(row!.id);
    // The console's routes are the admins' only.
    for (const who of [perf, other, fan]) {
      expect((await call('GET', `/admin/verifications/${row!.id}`, who)).status).toBe(403);
      expect((await call('POST', `/admin/verifications/${row!.id}/approve`, who, {})).status).toBe(403);
    }
    expect((await call('GET', `/admin/verifications/${row!.id}`, undefined)).status).toBe(401);

    const detail = await call('GET', `/admin/verifications/${row!.id}`, admin);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body).toMatchObject({ legalName: 'Jane Q. Example', dateOfBirth: adult, country: 'DE', status: 'pending', performer: { _id: perf.id } });
    expect(detail.body.images.map((i: { kind: string }) => i.kind)).toEqual(['documentFront', 'documentBack', 'selfie']);
    const url: string = detail.body.images[0].url;
    // Five minutes, not the media default.
    const ttl = (Date.parse(detail.body.images[0].expiresAt) - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(240);
    expect(ttl).toBeLessThanOrEqual(300);

    const opened = await media(url, admin);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('cache-control')).toBe('private, no-store');
    expect(opened.headers.get('content-type')).toBe('image/jpeg');
    // The admin's URL replayed by anyone else.
    for (const who of [fan, perf, other, undefined]) {
      const res = await media(url, who);
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('MEDIA_URL_OTHER_USER');
    }
    // URLs validly signed for anyone but an admin open nothing (the object type is admins only).
    const signer = mediaSigner(t.config);
    const target = { objectType: 'verification' as const, objectId: row!.id, fileId: row!.documentFrontFileId! };
    for (const who of [perf, fan, other]) expect((await media(signer.sign(target, who.id).url, who)).status).toBe(404);
    expect((await media(signer.sign(target, null).url)).status).toBe(404);
    // A file of this submission under another submission's id, and a file id the submission does not name.
    const [otherRow] = await rows(other.id);
    expect((await media(signer.sign({ ...target, objectId: otherRow!.id }, admin.id).url, admin)).status).toBe(404);
    const someFile = (await t.ctx.db.selectFrom('files').select('id').where('id', 'not in', [row!.documentFrontFileId!, row!.documentBackFileId!, row!.selfieFileId!]).executeTakeFirst())?.id ?? 'nofile';
    expect((await media(signer.sign({ ...target, fileId: someFile }, admin.id).url, admin)).status).toBe(404);
    // Expired: signed in the past.
    const expired = signer.sign(target, admin.id, { expiresAt: Math.floor(Date.now() / 1000) - 1 });
    const late = await media(expired.url, admin);
    expect(late.status).toBe(403);
    expect((await late.json()).code).toBe('MEDIA_URL_EXPIRED');
    // Never on the public media route.
    const key = (await t.ctx.db.selectFrom('files').select('storageKey').where('id', '=', row!.documentFrontFileId!).executeTakeFirstOrThrow()).storageKey;
    expect((await fetch(`${t.url}/media/public/${key}`)).status).toBe(404);
    expect((await fetch(`${t.url}/media/public/${key.replace(/^private\//, '')}`)).status).toBe(404);
  });

  it('reject with a reason, resubmit, approve: the performer is told each time and approved once verified', async () => {
    const perf = await newPerformer('Rita Review');
    expect((await submit(perf)).status).toBe(201);
    const [first] = await rows(perf.id);
    const before = (await outbox()).length;
    const noReason = await call('POST', `/admin/verifications/${first!.id}/reject`, admin, {});
    expect(noReason.status).toBe(400);
    const rejected = await call('POST', `/admin/verifications/${first!.id}/reject`, admin, { reason: 'The document <photo> is blurred' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'The document <photo> is blurred', decidedBy: admin.id });
    expect((await call('POST', `/admin/verifications/${first!.id}/approve`, admin, {})).body.code).toBe('ALREADY_DECIDED');
    expect((await t.ctx.db.selectFrom('performers').select('approved').where('id', '=', perf.id).executeTakeFirstOrThrow()).approved).toBe(0);
    const state = await call('GET', '/performer/verification', perf);
    expect(state.body).toMatchObject({ status: 'rejected', reason: 'The document <photo> is blurred' });
    const rejection = (await outbox()).slice(before).filter((m) => m.to === perf.email);
    expect(rejection.map((m) => m.template)).toEqual(['verification-rejected']);
    expect(rejection[0].eml.replace(/=\r?\n/g, '')).toContain('&lt;photo&gt; is blurred');
    const note = await t.ctx.db.selectFrom('notifications').selectAll().where('userId', '=', perf.id).where('type', '=', 'verification').execute();
    expect(note).toHaveLength(1);
    expect(JSON.parse(note[0]!.payload)).toMatchObject({ status: 'rejected', url: '/studio/verification' });
    const audit = await t.ctx.db.selectFrom('auditLog').select(['action', 'targetId']).where('action', 'like', 'verification.%').where('targetId', '=', perf.id).execute();
    expect(audit.map((a) => a.action)).toEqual(['verification.reject']);

    // Still drafts only.
    expect((await call('POST', '/performer/assets/posts', perf, { title: 'Live', content: 'Now.', status: 'published' })).body.code).toBe('PERFORMER_NOT_APPROVED');

    const again = await submit(perf, fields({ legalName: 'Rita Q. Review' }));
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body).toMatchObject({ status: 'pending', legalName: 'Rita Q. Review', reason: null });
    const resubmitted = (await outbox()).filter((m) => m.template === 'verification-submitted' && m.subject.includes(perf.username));
    expect(resubmitted).toHaveLength(2);
    expect(resubmitted[1].eml).toContain('after a rejection');
    // The queue: pending first, oldest first.
    const queue = await call('GET', '/admin/verifications', admin);
    expect(queue.status).toBe(200);
    const statuses: string[] = queue.body.items.map((i: { status: string }) => i.status);
    expect(statuses.indexOf('pending')).toBe(0);
    expect(statuses.lastIndexOf('pending')).toBeLessThan(statuses.indexOf('approved') === -1 ? statuses.length : statuses.indexOf('approved'));
    const pendingDates = queue.body.items.filter((i: { status: string }) => i.status === 'pending').map((i: { submittedAt: string }) => i.submittedAt);
    expect(pendingDates).toEqual([...pendingDates].sort());

    const [, second] = await rows(perf.id);
    const approved = await call('POST', `/admin/verifications/${second!.id}/approve`, admin, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect((await t.ctx.db.selectFrom('performers').select('approved').where('id', '=', perf.id).executeTakeFirstOrThrow()).approved).toBe(1);
    expect((await call('GET', '/performer/verification', perf)).body.status).toBe('approved');
    const approvalMail = (await outbox()).filter((m) => m.to === perf.email && m.template === 'verification-approved');
    expect(approvalMail).toHaveLength(1);
    const published = await call('POST', '/performer/assets/posts', perf, { title: 'Live', content: 'Now.', status: 'published' });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    expect((await submit(perf)).body.code).toBe('ALREADY_VERIFIED');
  });

  it('the console toggle cannot approve without a verified identity; withdrawing stays possible', async () => {
    const perf = await newPerformer('Tom Toggle');
    const refused = await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('VERIFICATION_REQUIRED');
    expect((await t.ctx.db.selectFrom('performers').select('approved').where('id', '=', perf.id).executeTakeFirstOrThrow()).approved).toBe(0);
    // A pending or rejected verification is not enough either.
    expect((await submit(perf)).status).toBe(201);
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true })).status).toBe(409);
    const [row] = await rows(perf.id);
    expect((await call('POST', `/admin/verifications/${row!.id}/approve`, admin, {})).status).toBe(200);
    // Withdrawn, then given back: the verification stands.
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: false })).status).toBe(200);
    expect((await t.ctx.db.selectFrom('performers').select('approved').where('id', '=', perf.id).executeTakeFirstOrThrow()).approved).toBe(0);
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true })).status).toBe(200);
  });

  it('the retention job deletes the pictures N days after the decision, not before, and keeps the record', async () => {
    expect((await call('PUT', '/admin/settings', admin, { verificationDocumentRetentionDays: 3 })).status).toBe(200);
    const early = await newPerformer('Ed Early');
    const late = await newPerformer('Lou Late');
    for (const p of [early, late]) expect((await submit(p)).status).toBe(201);
    const [e] = await rows(early.id);
    const [l] = await rows(late.id);
    expect((await call('POST', `/admin/verifications/${e!.id}/approve`, admin, {})).status).toBe(200);
    expect((await call('POST', `/admin/verifications/${l!.id}/reject`, admin, { reason: 'Selfie does not show the document' })).status).toBe(200);
    const lateDetail = await call('GET', `/admin/verifications/${l!.id}`, admin);
    const lateUrl: string = lateDetail.body.images[0].url;
    const lateKeys = (await t.ctx.db.selectFrom('files').select('storageKey').where('id', 'in', [l!.documentFrontFileId!, l!.documentBackFileId!, l!.selfieFileId!]).execute()).map((f) => f.storageKey);
    const earlyKeys = (await t.ctx.db.selectFrom('files').select('storageKey').where('id', 'in', [e!.documentFrontFileId!, e!.documentBackFileId!, e!.selfieFileId!]).execute()).map((f) => f.storageKey);
    // Decided 2 days and 20 hours ago: kept. Decided 3 days and 1 hour ago: deleted.
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    await t.ctx.db.updateTable('performerVerifications').set({ decidedAt: ago(68 * 3_600_000) }).where('id', '=', e!.id).execute();
    await t.ctx.db.updateTable('performerVerifications').set({ decidedAt: ago(73 * 3_600_000) }).where('id', '=', l!.id).execute();

    const jobId = await t.ctx.jobs.enqueue(t.ctx.db, JOB_VERIFICATION_RETENTION, {});
    await expect.poll(async () => (await t.ctx.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status, { timeout: 15_000 }).toBe('done');

    const [eAfter] = await rows(early.id);
    const [lAfter] = await rows(late.id);
    expect(eAfter!.filesDeletedAt).toBeNull();
    for (const k of earlyKeys) expect(await t.ctx.storage.stat(k)).not.toBeNull();
    expect(lAfter).toMatchObject({ status: 'rejected', legalName: 'Jane Q. Example', dateOfBirth: adult, reason: 'Selfie does not show the document', documentFrontFileId: null, documentBackFileId: null, selfieFileId: null });
    expect(lAfter!.filesDeletedAt).not.toBeNull();
    for (const k of lateKeys) expect(await t.ctx.storage.stat(k)).toBeNull();
    expect(await t.ctx.db.selectFrom('files').select('id').where('storageKey', 'in', lateKeys).execute()).toEqual([]);
    // The console says so, with no pictures; the URL it gave before opens nothing.
    const detail = await call('GET', `/admin/verifications/${l!.id}`, admin);
    expect(detail.body).toMatchObject({ images: [], status: 'rejected' });
    expect(detail.body.filesDeletedAt).not.toBeNull();
    expect((await media(lateUrl, admin)).status).toBe(404);
    // The run scheduled the next one.
    const next = await t.ctx.db.selectFrom('jobs').select(['runAt', 'status']).where('type', '=', JOB_VERIFICATION_RETENTION).where('status', '=', 'queued').execute();
    expect(next).toHaveLength(1);
    expect(Date.parse(next[0]!.runAt)).toBeGreaterThan(Date.now() + 60 * 60_000);
  });

  it('a session of the same admin in another browser opens the URL; a new session of another admin does not', async () => {
    const perf = await newPerformer('Nora Newer');
    expect((await submit(perf)).status).toBe(201);
    const [row] = await rows(perf.id);
    const detail = await call('GET', `/admin/verifications/${row!.id}`, admin);
    const second = { headers: { authorization: `Bearer ${await createSession(t.ctx.db, admin.id)}` } } as TestUser;
    expect((await media(detail.body.images[2].url, second)).status).toBe(200);
    const admin2 = await createUser(t.ctx.db, 'admin');
    expect((await media(detail.body.images[2].url, admin2)).status).toBe(403);
  });
});
