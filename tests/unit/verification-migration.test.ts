import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import * as verification from '../../server/db/migrations/0026_verification.js';
import { makePerformer } from '../../server/seed/factories.js';

let handle: DatabaseHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

describe('migration 0026 (verification)', () => {
  it('withdraws the approvals given before anybody was identified; a performer made later keeps theirs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migration-0026-'));
    handle = await openDatabase({ sqliteFile: path.join(dir, 'site.db') });
    const { db } = handle;
    await migrateToLatest(db);
    // The site as it was before 0026: approved performers, no verification table.
    const before = (await makePerformer(db, { name: 'Approved Before' })).user.id;
    const unapproved = (await makePerformer(db, { name: 'Never Approved', performer: { approved: 0 } })).user.id;
    await sql`drop table performer_verifications`.execute(db);
    await verification.up(db);
    const approved = async (id: string) => (await db.selectFrom('performers').select('approved').where('id', '=', id).executeTakeFirstOrThrow()).approved;
    expect(await approved(before)).toBe(0);
    expect(await approved(unapproved)).toBe(0);
    // Made after it (with its verification record, as the seed and the console's approval do): approved.
    expect(await approved((await makePerformer(db, { name: 'Verified After' })).user.id)).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
