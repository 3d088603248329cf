import type { Insertable, Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type { SandboxChargesTable } from '../db/schema.js';

/** SQL of the sandbox provider's own side: its charges (`sandbox_charges`; server/payments/sandbox.gateway.ts). */

export type SandboxCharge = Selectable<SandboxChargesTable>;
export type SandboxChargeStatus = SandboxCharge['status'];

export async function insertSandboxCharge(db: DbOrTrx, row: Insertable<SandboxChargesTable>): Promise<void> {
  await db.insertInto('sandboxCharges').values(row).execute();
}

export function findSandboxCharge(db: DbOrTrx, id: string): Promise<SandboxCharge | undefined> {
  return db.selectFrom('sandboxCharges').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Moves a charge to `to` when it is in one of `from` (and, with `notExpired`, still open); false when it was not,
 * so of two concurrent moves exactly one happens.
 */
export async function moveSandboxCharge(
  db: DbOrTrx,
  id: string,
  from: readonly SandboxChargeStatus[],
  to: SandboxChargeStatus,
  opts: { notExpired?: boolean } = {},
): Promise<boolean> {
  const now = nowIso();
  let q = db.updateTable('sandboxCharges').set({ status: to, updatedAt: now }).where('id', '=', id).where('status', 'in', [...from]);
  if (opts.notExpired) q = q.where('expiresAt', '>', now);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
