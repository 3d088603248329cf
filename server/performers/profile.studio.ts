import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import type { Actor, StudioDeps } from '../studio/deps.js';
import * as repo from '../studio/studio.repository.js';
import { subscriberStats } from '../subscriptions/subscriptions.service.js';
import type { ProfileInput, StudioProfile } from '../../common/schemas/studio.js';

/** The performer studio's profile: bio, subscription prices and offers (trial, bundles), the countries the performer blocks. */

export async function profileView(db: DbOrTrx, performerId: string): Promise<StudioProfile> {
  const row = await repo.getPerformerRow(db, performerId);
  if (!row) throw notFound('Performer');
  return {
    _id: row.id,
    username: row.username,
    name: row.displayName,
    bio: row.bio,
    monthlyPrice: row.monthlyPrice,
    yearlyPrice: row.yearlyPrice,
    trialDays: row.trialDays,
    bundle3Bps: row.bundle3Bps,
    bundle6Bps: row.bundle6Bps,
    bundle12Bps: row.bundle12Bps,
    blockedCountries: await repo.getBlockedCountries(db, performerId),
  };
}

export async function updateProfile(deps: StudioDeps, actor: Actor, input: ProfileInput): Promise<StudioProfile> {
  const current = await repo.getPerformerRow(deps.db, actor.id);
  if (!current) throw notFound('Performer');
  await deps.db.transaction().execute(async (trx) => {
    const changes = {
      ...(input.bio !== undefined ? { bio: input.bio } : {}),
      ...(input.monthlyPrice !== undefined ? { monthlyPrice: input.monthlyPrice } : {}),
      ...(input.yearlyPrice !== undefined ? { yearlyPrice: input.yearlyPrice } : {}),
      // Offers apply to checkouts from now on; running subscriptions keep the terms they started with.
      ...(input.trialDays !== undefined ? { trialDays: input.trialDays } : {}),
      ...(input.bundle3Bps !== undefined ? { bundle3Bps: input.bundle3Bps } : {}),
      ...(input.bundle6Bps !== undefined ? { bundle6Bps: input.bundle6Bps } : {}),
      ...(input.bundle12Bps !== undefined ? { bundle12Bps: input.bundle12Bps } : {}),
    };
    if (Object.keys(changes).length) await repo.updatePerformerProfile(trx, actor.id, changes);
    if (input.blockedCountries !== undefined) await repo.setBlockedCountries(trx, actor.id, input.blockedCountries);
  });
  return profileView(deps.db, actor.id);
}

/** The studio's overview: the profile and the performer's counts (undefined when the row is gone). */
export async function studioOverview(db: DbOrTrx, performerId: string) {
  const [profile, counts, subscribers] = await Promise.all([profileView(db, performerId), repo.performerCounts(db, performerId), subscriberStats(db, performerId)]);
  return { profile, counts, subscribers };
}
