/**
 * Fills a database (SQLite or PostgreSQL, through the app's Kysely instance) with a large catalogue for the
 * benchmark: `performers` performer accounts and `videos` public videos spread over them (one "big" performer gets
 * `bigPerformerVideos` of them), tags on every tenth video. No media files: every video reuses the file rows
 * (full file, thumbnail, teaser) of one template video, so list items still carry preview URLs.
 *
 * Batched multi-row INSERTs inside one transaction, rows from the factories' builders (server/seed/factories.ts);
 * ~100k videos take seconds on SQLite.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../server/db/schema.js';
import { newId } from '../../server/db/ids.js';
import { fileRow } from '../../server/media/pipeline/pipeline.repository.js';
import { performerRow, tagRows, userRow, videoRow } from '../../server/seed/factories.js';

export interface GenerateOptions {
  performers: number;
  videos: number;
  bigPerformerVideos?: number;
  /** Rows per INSERT (kept under SQLite's 32766 bound parameters). */
  batch?: number;
}

export interface Generated {
  performers: number;
  videos: number;
  bigPerformer: { id: string; username: string };
  samplePerformer: { id: string; username: string };
  tag: string;
  ms: number;
}

const WORDS = ['sunset', 'morning', 'studio', 'yoga', 'dance', 'cooking', 'travel', 'music', 'workout', 'comedy', 'painting', 'garden'];

export async function generateLargeCatalogue(db: Kysely<Database>, opts: GenerateOptions): Promise<Generated> {
  const started = Date.now();
  const batch = opts.batch ?? 1000;
  const big = Math.min(opts.bigPerformerVideos ?? 1000, opts.videos);
  const base = Date.parse('2024-01-01T00:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  const ids: string[] = [];
  const usernames: string[] = [];
  for (let i = 0; i < opts.performers; i++) {
    ids.push(newId(base + i * 1000));
    usernames.push(`bench${String(i).padStart(6, '0')}`);
  }

  await db.transaction().execute(async (trx) => {
    // Template files, shared by every generated video.
    const owner = ids[0]!;
    const now = iso(base);
    const file = (kind: 'video' | 'image', storageKey: string, mime: string, variant = 'original') => ({
      ...fileRow({ id: newId(), ownerId: owner, variant, kind, storageKey, mime, size: 1000, width: 320, height: 180, duration: kind === 'video' ? 30 : null, status: 'ready' }, now),
    });
    const full = file('video', 'private/videos/bench.mp4', 'video/mp4');
    const thumb = file('image', 'public/videos/thumbs/bench.webp', 'image/webp', 'thumb');
    const teaser = file('video', 'public/videos/teasers/bench.mp4', 'video/mp4', 'teaser');

    for (let i = 0; i < ids.length; i += batch) {
      const slice = ids.slice(i, i + batch);
      await trx
        .insertInto('users')
        .values(slice.map((id, k) => userRow({
          id, email: `${usernames[i + k]}@bench.test`, username: usernames[i + k]!, name: `Bench Performer ${i + k}`, passwordHash: 'x', role: 'performer',
          createdAt: iso(base + (i + k) * 1000),
        })))
        .execute();
      await trx
        .insertInto('performers')
        .values(slice.map((id, k) => performerRow({
          id, username: usernames[i + k]!, displayName: `Bench Performer ${i + k}`, bio: `Performer number ${i + k} of the benchmark.`,
          monthlyPrice: 499 + ((i + k) % 20) * 100, yearlyPrice: 4990 + ((i + k) % 20) * 1000, commissionBps: null, featured: 0,
          subscriberCount: (i + k) % 997, videoCount: 0, gender: null, country: null, createdAt: iso(base + (i + k) * 1000),
        })))
        .execute();
    }
    await trx.insertInto('files').values([full, thumb, teaser]).execute();

    // Videos: the first `big` belong to performer 0, the rest round-robin over everyone.
    const counts = new Map<string, number>();
    const tags: Array<ReturnType<typeof tagRows>[number]> = [];
    for (let i = 0; i < opts.videos; i += batch) {
      const rows = [];
      for (let n = i; n < Math.min(i + batch, opts.videos); n++) {
        const performerId = n < big ? ids[0]! : ids[n % ids.length]!;
        counts.set(performerId, (counts.get(performerId) ?? 0) + 1);
        const at = iso(base + 86_400_000 + n * 60_000);
        const id = newId(base + n);
        const access = n % 3 === 0 ? 'free' : n % 3 === 1 ? 'subscribers' : 'sale';
        const word = WORDS[n % WORDS.length]!;
        const tagList = n % 10 === 0 ? [word] : [];
        tags.push(...tagRows('video', id, tagList));
        rows.push(videoRow({
          id, performerId, title: `${word} clip ${n}`, slug: `${word}-clip-${n}`, access, price: access === 'sale' ? 499 + (n % 50) * 10 : 0, fileId: full.id,
          teaserFileId: teaser.id, thumbnailFileId: thumb.id, duration: 30, publishedAt: at, tags: JSON.stringify(tagList), likeCount: n % 101,
          viewCount: (n * 7919) % 100_000, createdAt: at, updatedAt: at,
        }));
      }
      await trx.insertInto('videos').values(rows).execute();
    }
    for (let i = 0; i < tags.length; i += batch * 5) await trx.insertInto('contentTags').values(tags.slice(i, i + batch * 5)).execute();
    // Denormalised counters the profile shows: one statement per distinct count (a handful), not one per performer.
    const byCount = new Map<number, string[]>();
    for (const [id, n] of counts) byCount.set(n, [...(byCount.get(n) ?? []), id]);
    for (const [n, list] of byCount) {
      for (let i = 0; i < list.length; i += 5000) await trx.updateTable('performers').set({ videoCount: n }).where('id', 'in', list.slice(i, i + 5000)).execute();
    }
  });

  return {
    performers: ids.length,
    videos: opts.videos,
    bigPerformer: { id: ids[0]!, username: usernames[0]! },
    samplePerformer: { id: ids[Math.floor(ids.length / 2)]!, username: usernames[Math.floor(ids.length / 2)]! },
    tag: WORDS[0]!,
    ms: Date.now() - started,
  };
}
