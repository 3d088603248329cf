import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../../config.js';
import { openDatabase, type DbOrTrx } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { newId, nowIso } from '../../db/ids.js';
import { emailField, newPassword } from '../../../common/schemas/auth.js';
import { hashPassword } from '../../auth/password.js';
import { findUserByEmail, insertUser, updateUser, usernameTaken } from '../../users/users.repository.js';
import { writeAudit } from '../../audit/audit.repository.js';

/**
 * `npm run admin:create -- --email x --password y [--name "Site Admin"]`: creates an admin account, or promotes the
 * account with that email to admin (and sets the given password). The password policy is the site's own.
 * Exit code 0 on success, 1 on bad input or failure.
 */

const input = z.object({ email: emailField, password: newPassword, name: z.string().trim().min(1).max(100).optional() });

async function freeUsername(db: DbOrTrx, email: string): Promise<string> {
  const base = (email.split('@')[0] ?? 'admin').toLowerCase().replace(/[^a-z0-9_.]/g, '').slice(0, 24).padEnd(3, '0');
  for (let i = 0; i < 50; i++) {
    const candidate = i === 0 ? `${base}_admin`.slice(0, 30) : `${base}_admin${i}`.slice(0, 30);
    if (!(await usernameTaken(db, candidate))) return candidate;
  }
  return `admin_${newId().slice(-10).toLowerCase()}`;
}

export async function createOrPromoteAdmin(db: DbOrTrx & { transaction?: unknown }, args: { email: string; password: string; name?: string }) {
  const parsed = input.safeParse(args);
  if (!parsed.success) return { ok: false as const, errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`) };
  const { email, password, name } = parsed.data;
  const passwordHash = await hashPassword(password);
  const now = nowIso();
  const existing = await findUserByEmail(db, email);
  if (existing) {
    await updateUser(db, existing.id, { role: 'admin', status: 'active', emailVerified: 1, passwordHash, ...(name ? { name } : {}) });
    await writeAudit(db, { actorId: null, action: 'admin.promote', targetType: 'user', targetId: existing.id, details: { via: 'cli', email, fromRole: existing.role } });
    return { ok: true as const, action: 'promoted' as const, id: existing.id, email, username: existing.username, previousRole: existing.role };
  }
  const id = newId();
  const username = await freeUsername(db, email);
  await insertUser(db, { id, email, username, name: name ?? 'Site admin', passwordHash, role: 'admin', status: 'active', emailVerified: 1, createdAt: now, updatedAt: now });
  await writeAudit(db, { actorId: null, action: 'admin.create', targetType: 'user', targetId: id, details: { via: 'cli', email } });
  return { ok: true as const, action: 'created' as const, id, email, username };
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } }, strict: true });
  if (!values.email || !values.password) {
    process.stderr.write('Usage: npm run admin:create -- --email <email> --password <password> [--name <name>]\n');
    return 1;
  }
  const checked = input.safeParse({ email: values.email, password: values.password, name: values.name });
  if (!checked.success) {
    process.stderr.write(`Admin not created:\n${[...new Set(checked.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`))].join('\n')}\n`);
    return 1;
  }
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    await migrateToLatest(database.db);
    const result = await database.db.transaction().execute((trx) => createOrPromoteAdmin(trx, { email: values.email!, password: values.password!, name: values.name }));
    if (!result.ok) {
      process.stderr.write(`Admin not created:\n${result.errors.map((e) => `  - ${e}`).join('\n')}\n`);
      return 1;
    }
    process.stdout.write(
      result.action === 'created'
        ? `Admin account created: ${result.email} (username ${result.username}, id ${result.id}).\n`
        : `Account ${result.email} promoted to admin (was ${result.previousRole}); password updated.\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`Admin not created: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
