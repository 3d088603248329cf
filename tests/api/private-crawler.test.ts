import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, waitFor } from '../helpers/uploads.js';
import { payWithSandbox } from '../helpers/money-fixture.js';
import { registeredRoutes } from '../../server/http/access.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { makeVideo, subscribe } from '../../server/seed/factories.js';
import { pageAccess } from '../../src/server/page-access.js';

/**
 * A crawler with someone else's session. A fan and a performer talk privately (text and pictures both ways, a
 * paid message not bought yet, a mass message, a tip with a note); then another fan and another performer ask every GET route of the API and
 * every page of the site, each path parameter filled with every private id there is (conversation, messages, their
 * files, the mass message, the tip's payment, the notifications, the fan's data export and its file). Not one answer may hold a private text, a file of
 * those messages, or a media URL of them. Routes are read from the running app, so a route added later is crawled
 * without anyone remembering to list it.
 */

/** A takedown requester: their name, address and words reach the admins only. */
const TAKEDOWN = { name: 'Quinn Takedown-Requester', email: 'quinn.requester-4b7e@example.org', statement: 'takedown-secret-8d1c this shows me without my consent' };

const SECRETS = {
  fan: 'fan-secret-7f3a words only the performer reads',
  performer: 'performer-secret-91bc answer for one fan',
  mass: 'mass-secret-c0d2 to my subscribers',
  tip: 'tip-secret-5e6f note with the tip',
  verificationName: 'Legalname Secret-4d2b',
  legalName: 'Legal-secret-a4b8 Outside Person',
};

describe.each(engines)('a crawler as another fan finds no private message on %s', (engine) => {
  let t: TestApp;
  let fan: TestUser;
  let perf: TestUser;
  let crawlers: Record<'anotherFan' | 'anotherPerformer', TestUser>;
  /** Every private id, and the strings no crawler may see (the texts, the files' ids). */
  const ids: Record<string, string> = {};
  const hidden: string[] = Object.values(SECRETS);

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true, env: { RATE_LIMIT_MESSAGES: '1000/60' } });
    const db = t.ctx.db;
    const media = await makeTestMedia();
    perf = await createUser(db, 'performer', { name: 'Private Performer', performer: { messagePolicy: 'fans' } });
    fan = await createUser(db, 'user', { name: 'Private Fan' });
    crawlers = { anotherFan: await createUser(db, 'user', { name: 'Crawling Fan' }), anotherPerformer: await createUser(db, 'performer', { name: 'Crawling Performer' }) };
    await subscribe(db, fan.id, perf.id);
    const api = (who: TestUser, method: string, path: string, json?: unknown) => t.api(path, { method, headers: who.headers, json });

    const opened = await api(fan, 'POST', '/messages/conversations', { userId: perf.id });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    ids.conversation = opened.body._id;
    const picture = [{ name: 'file', filename: 'p.png', data: media.png, type: 'image/png' }];
    for (const [who, text, key] of [[fan, SECRETS.fan, 'fanMessage'], [perf, SECRETS.performer, 'performerMessage']] as const) {
      const sent = await postForm(t, `/messages/conversations/${ids.conversation}/messages`, { fields: { text }, files: picture }, { headers: who.headers });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      ids[key] = sent.body._id;
      ids[`${key}File`] = sent.body.attachments[0]._id;
      hidden.push(sent.body.attachments[0]._id);
    }
    // A paid picture the fan has not bought: its file is hidden from the fan too (tests/api/paid-messages.test.ts), and from every crawler.
    const paid = await postForm(t, `/messages/conversations/${ids.conversation}/messages`, { fields: { text: 'paid-secret-3a9e unlock me', price: '900' }, files: picture }, { headers: perf.headers });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    ids.paidMessage = paid.body._id;
    ids.paidMessageFile = paid.body.attachments[0]._id;
    hidden.push('paid-secret-3a9e unlock me', paid.body.attachments[0]._id);
    const mass = await postForm(t, '/performer/mass-messages', { fields: { text: SECRETS.mass, audience: 'subscribers' }, files: picture }, { headers: perf.headers });
    expect(mass.status, JSON.stringify(mass.body)).toBe(201);
    ids.massMessage = mass.body._id;
    await waitFor(async () => (await api(perf, 'GET', '/performer/mass-messages')).body.items[0]?.status === 'done', 'the mass message to be delivered');
    const copy = await db.selectFrom('messages').select('id').where('massMessageId', '=', ids.massMessage!).executeTakeFirstOrThrow();
    ids.massCopy = copy.id;
    const tip = await api(fan, 'POST', '/payment/tip', { performerId: perf.id, amount: 500, note: SECRETS.tip });
    expect(tip.status, JSON.stringify(tip.body)).toBe(201);
    expect((await payWithSandbox(t, fan, tip.body.redirectUrl)).status).toBe(200);
    ids.tipPayment = tip.body.paymentId;
    // A new performer's identity verification: the legal name and the pictures are for admins only.
    const verifying = await createUser(db, 'performer', { name: 'Verifying Performer', performer: { approved: 0 } });
    const sent = await postForm(t, '/performer/verification', {
      fields: { legalName: SECRETS.verificationName, dateOfBirth: '1987-03-09', country: 'NL' },
      files: ['documentFront', 'documentBack', 'selfie'].map((name) => ({ name, filename: `${name}.jpg`, data: media.jpeg, type: 'image/jpeg' })),
    }, { headers: verifying.headers });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const verification = await db.selectFrom('performerVerifications').selectAll().where('performerId', '=', verifying.id).executeTakeFirstOrThrow();
    ids.verification = verification.id;
    ids.verificationFront = verification.documentFrontFileId!;
    ids.verificationSelfie = verification.selfieFileId!;
    hidden.push(verification.documentFrontFileId!, verification.documentBackFileId!, verification.selfieFileId!);
    const notes = await db.selectFrom('notifications').select(['id', 'userId']).where('userId', 'in', [fan.id, perf.id]).execute();
    expect(notes.length).toBeGreaterThan(1);
    notes.forEach((n, i) => (ids[`notification${i}`] = n.id));

    // The fan's data export (server/privacy/README.md): every secret above is in its file, which only the fan opens.
    const exported = await api(fan, 'POST', '/users/me/data-exports');
    expect(exported.status, JSON.stringify(exported.body)).toBe(202);
    ids.dataExport = exported.body._id;
    hidden.push(exported.body._id);
    const ready = await waitFor(async () => {
      const x = (await api(fan, 'GET', `/users/me/data-exports/${ids.dataExport}`)).body;
      return x.status === 'ready' ? x : null;
    }, 'the data export to be ready');
    ids.dataExportFile = String(ready.downloadUrl).split('?')[0]!.split('/').pop()!;
    hidden.push(ids.dataExportFile);
    // Consent records: the performer names an outside person (release form and identity document) and another performer
    // of the site on a video; the record ids, the files' ids and the legal name are private (admins and the two only).
    const partner = await createUser(db, 'performer', { name: 'Private Partner' });
    const video = (await makeVideo(t.ctx, perf.id, { title: 'Consent duet', withFiles: false })).id;
    const outside = await postForm(t, `/performer/co-performers/video/${video}/outside`, {
      fields: { legalName: SECRETS.legalName },
      files: [{ name: 'releaseForm', filename: 'release.pdf', data: media.pdf, type: 'application/pdf' }, { name: 'idDocument', filename: 'id.png', data: media.png, type: 'image/png' }],
    }, { headers: perf.headers });
    expect(outside.status, JSON.stringify(outside.body)).toBe(201);
    const named = await api(perf, 'POST', `/performer/co-performers/video/${video}`, { username: partner.username });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    const consent = await db.selectFrom('coPerformers').select(['id', 'releaseFileId', 'idFileId']).where('objectId', '=', video).execute();
    for (const [i, r] of consent.entries()) {
      ids[`consentRecord${i}`] = r.id;
      hidden.push(r.id);
      if (r.releaseFileId) (ids[`consentRelease${i}`] = r.releaseFileId), hidden.push(r.releaseFileId);
      if (r.idFileId) (ids[`consentId${i}`] = r.idFileId), hidden.push(r.idFileId);
    }
    expect(consent).toHaveLength(2);
    // The admin's console holds them (with links), and the partner sees their own request: the crawl below proves more than nothing.
    const admin = await createUser(db, 'admin');
    const consoleAnswer = JSON.stringify((await api(admin, 'GET', `/admin/consent?objectType=video&objectId=${video}`)).body);
    expect(consoleAnswer).toContain(SECRETS.legalName);
    expect(consoleAnswer).toContain('/media/protected/consent/');

    // The participants themselves see what the crawlers must not (else the checks below prove nothing).
    const thread = JSON.stringify((await api(fan, 'GET', `/messages/conversations/${ids.conversation}/messages`)).body);
    for (const s of [SECRETS.fan, SECRETS.performer, SECRETS.mass]) expect(thread).toContain(s);
    expect(JSON.stringify((await api(perf, 'GET', '/earning/performer/search')).body)).toContain(SECRETS.tip);

    // A takedown request of one of the performer's videos: who asked (name, email, statement) is for admins only.
    const taken = await makeVideo(t.ctx, perf.id, { title: 'Taken down clip', access: 'free', withFiles: false });
    const takedown = await t.api('/takedowns', {
      method: 'POST',
      json: { url: `/videos/${taken.id}`, name: TAKEDOWN.name, email: TAKEDOWN.email, relationship: 'depicted', statement: TAKEDOWN.statement, declaration: true },
    });
    expect(takedown.status, JSON.stringify(takedown.body)).toBe(201);
    const request = await db.selectFrom('takedownRequests').select(['id', 'reference']).where('targetId', '=', taken.id).executeTakeFirstOrThrow();
    ids.takedown = request.id;
    hidden.push(TAKEDOWN.name, TAKEDOWN.email, TAKEDOWN.statement, request.reference);
    expect(JSON.stringify((await api(admin, 'GET', '/admin/takedowns')).body)).toContain(TAKEDOWN.email);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Every concrete path of a template: each `:param` (or `[param]`) in turn takes every private id. */
  function fill(template: string, param: RegExp): string[] {
    const names = template.match(param) ?? [];
    if (names.length === 0) return [template];
    let paths = [template];
    for (const name of names) paths = paths.flatMap((p) => Object.values(ids).map((id) => p.replace(name, id)));
    return paths;
  }

  /** Pages read the session from the `token` cookie, as a browser sends it. */
  const pageSession = (who: TestUser) => ({ cookie: `token=${who.token}` });

  /** What an answer gave away: a private text, a private file's id, or a URL into the messages' media. */
  function leaks(body: string, askedFor: string): string[] {
    const found = hidden.filter((h) => body.includes(h) && !askedFor.includes(h));
    if (body.includes('/media/protected/message/')) found.push('a message media URL');
    if (body.includes('/media/protected/verification/')) found.push('an identity verification media URL');
    if (body.includes('/media/protected/export/')) found.push('a data export URL');
    if (body.includes('/media/protected/consent/')) found.push('a consent file URL');
    return found;
  }

  it('the API: every GET route, every private id in every parameter', async () => {
    const routes = registeredRoutes(t.built.app).filter((r) => r.method === 'GET' && r.url.startsWith(`${t.config.apiBase}/`) && !r.url.includes('*'));
    expect(routes.length).toBeGreaterThan(80);
    const found: string[] = [];
    let asked = 0;
    for (const who of Object.values(crawlers)) {
      for (const r of routes) {
        for (const path of fill(r.url.slice(t.config.apiBase.length), /:\w+/g)) {
          const res = await fetch(`${t.url}${t.config.apiBase}${path}`, { headers: who.headers });
          const body = await res.text();
          asked++;
          expect(res.status, `${path}: ${body.slice(0, 200)}`).toBeLessThan(500);
          for (const leak of leaks(body, path)) found.push(`${who.username} GET ${path} → ${res.status}: ${leak}`);
        }
      }
    }
    expect(asked).toBeGreaterThan(500);
    expect(found).toEqual([]);
  }, 240_000);

  it('the pages: every page route, every private id', async () => {
    const found: string[] = [];
    let asked = 0;
    for (const who of Object.values(crawlers)) {
      for (const route of Object.keys(pageAccess)) {
        for (const path of fill(route, /\[\w+\]/g)) {
          const res = await fetch(`${t.url}${path}`, { headers: pageSession(who), redirect: 'manual' });
          const body = await res.text();
          asked++;
          // The maintenance page answers 503 by design (search engines come back later).
          if (path !== '/maintenance') expect(res.status, `${path}: ${body.slice(0, 200)}`).toBeLessThan(500);
          for (const leak of leaks(body, path)) found.push(`${who.username} ${path} → ${res.status}: ${leak}`);
        }
      }
    }
    expect(asked).toBeGreaterThan(100);
    expect(found).toEqual([]);
    // The thread's page renders for its fan (its messages come from the API the crawl above asked as others).
    expect((await fetch(`${t.url}/messages/${ids.conversation}`, { headers: pageSession(fan), redirect: 'manual' })).status).toBe(200);
  }, 240_000);

  it('the media: the fan\'s data export, signed for the crawler or not, opens for the fan alone', async () => {
    const signer = mediaSigner(t.config);
    const target = { objectType: 'export' as const, objectId: ids.dataExport!, fileId: ids.dataExportFile! };
    for (const who of Object.values(crawlers)) {
      for (const url of [signer.sign(target, who.id).url, signer.sign(target, fan.id).url, signer.sign(target, null).url, `/media/protected/export/${ids.dataExport}/${ids.dataExportFile}`]) {
        const res = await fetch(`${t.url}${url}`, { headers: who.headers });
        expect([403, 404], `${who.username} ${url}`).toContain(res.status);
      }
    }
    const own = await fetch(`${t.url}${signer.sign(target, fan.id).url}`, { headers: fan.headers });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain(SECRETS.fan);
  });

  it('the media: every message file, signed for the crawler or not, opens for nobody but the two', async () => {
    const signer = mediaSigner(t.config);
    const files = [[ids.fanMessage!, ids.fanMessageFile!], [ids.performerMessage!, ids.performerMessageFile!]];
    for (const [messageId, fileId] of files) {
      for (const who of Object.values(crawlers)) {
        const signed = signer.sign({ objectType: 'message', objectId: messageId!, fileId: fileId! }, who.id).url;
        const bare = `/media/protected/message/${messageId}/${fileId}`;
        for (const url of [signed, bare]) {
          const res = await fetch(`${t.url}${url}`, { headers: who.headers });
          expect([403, 404], `${who.username} ${url}`).toContain(res.status);
        }
      }
      // The same signature for the fan opens: the refusals above are about who asks, not a broken URL.
      const own = signer.sign({ objectType: 'message', objectId: messageId!, fileId: fileId! }, fan.id).url;
      expect((await fetch(`${t.url}${own}`, { headers: fan.headers })).status).toBe(200);
    }
  });

  it('the media: a release form or identity document, signed for anybody but an admin, opens for nobody; an admin\'s link only for that admin', async () => {
    const signer = mediaSigner(t.config);
    const files = Object.keys(ids).filter((k) => /^consent(Release|Id)\d$/.test(k)).map((k) => [ids[`consentRecord${k.slice(-1)}`]!, ids[k]!] as const);
    expect(files).toHaveLength(2);
    const admin = await createUser(t.ctx.db, 'admin');
    for (const [recordId, fileId] of files) {
      for (const who of [...Object.values(crawlers), fan, perf]) {
        for (const url of [signer.sign({ objectType: 'consent', objectId: recordId, fileId }, who.id).url, `/media/protected/consent/${recordId}/${fileId}`]) {
          const res = await fetch(`${t.url}${url}`, { headers: who.headers });
          expect([403, 404], `${who.username} ${url}`).toContain(res.status);
        }
      }
      const adminUrl = signer.sign({ objectType: 'consent', objectId: recordId, fileId }, admin.id).url;
      for (const who of [...Object.values(crawlers), fan, perf]) expect((await fetch(`${t.url}${adminUrl}`, { headers: who.headers })).status).toBe(403);
      expect((await fetch(`${t.url}${adminUrl}`)).status).toBe(403);
      expect((await fetch(`${t.url}${adminUrl}`, { headers: admin.headers })).status).toBe(200);
    }
  });

  it('the media: an identity verification picture, signed for the crawler or not, opens for nobody but an admin', async () => {
    const signer = mediaSigner(t.config);
    for (const fileId of [ids.verificationFront!, ids.verificationSelfie!]) {
      const target = { objectType: 'verification' as const, objectId: ids.verification!, fileId };
      for (const who of Object.values(crawlers)) {
        for (const url of [signer.sign(target, who.id).url, `/media/protected/verification/${ids.verification}/${fileId}`]) {
          const res = await fetch(`${t.url}${url}`, { headers: who.headers });
          expect([403, 404], `${who.username} ${url}`).toContain(res.status);
        }
      }
      const admin = await createUser(t.ctx.db, 'admin');
      expect((await fetch(`${t.url}${signer.sign(target, admin.id).url}`, { headers: admin.headers })).status).toBe(200);
    }
  });
});
