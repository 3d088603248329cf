import type { AppContext } from '../../server/context.js';
import type { EngagementObjectType } from '../../common/enums.js';
import { makeGallery, makePost, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { createUser, type TestUser } from './sessions.js';
import type { TestApp } from './test-app.js';

/**
 * Objects to comment on and react to: a performer (star) with a public video, a draft video, a gallery, a
 * product and a post; a second performer (other); viewers fan, friend, admin.
 */
export async function buildEngagement(ctx: Pick<AppContext, 'db' | 'storage'>) {
  const { db } = ctx;
  const star = await createUser(db, 'performer', { name: 'Star Performer' });
  const other = await createUser(db, 'performer', { name: 'Other Performer' });
  const fan = await createUser(db, 'user', { name: 'Fan One' });
  const friend = await createUser(db, 'user', { name: 'Friend Two' });
  const admin = await createUser(db, 'admin', { name: 'Site Admin' });
  const video = await makeVideo(ctx, star.id, { title: 'Public video', access: 'free', withFiles: false });
  const subsVideo = await makeVideo(ctx, star.id, { title: 'Subscribers video', access: 'subscribers', withFiles: false });
  const draft = await makeVideo(ctx, star.id, { title: 'Draft video', status: 'draft', publishedAt: null, withFiles: false });
  const gallery = await makeGallery(ctx, star.id, { title: 'Public gallery', photos: 1 });
  const draftGallery = await makeGallery(ctx, star.id, { title: 'Draft gallery', status: 'draft', photos: 0 });
  const product = await makeProduct(ctx, star.id, { name: 'Mug' });
  const post = await makePost(ctx, { title: 'Hello post', performerId: star.id });
  const otherVideo = await makeVideo(ctx, other.id, { title: 'Other video', access: 'free', withFiles: false });
  const objects: Record<EngagementObjectType, string> = { video: video.id, gallery: gallery.id, product: product.id, post: post.id, performer: star.id };
  return { star, other, fan, friend, admin, video, subsVideo, draft, gallery, draftGallery, product, post, otherVideo, objects };
}

export type Engagement = Awaited<ReturnType<typeof buildEngagement>>;

/** `count` users with sessions, made in parallel batches. */
export async function manyUsers(db: AppContext['db'], count: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let i = 0; i < count; i += 25) {
    users.push(...(await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => createUser(db, 'user')))));
  }
  return users;
}

export const bearer = (u: { token: string }) => ({ authorization: `Bearer ${u.token}` });

/**
 * An API caller for the engagement suites: `app()` is read at call time (the app starts in beforeAll), and every
 * 5xx answer is recorded in `serverErrors`, which each suite asserts empty at the end.
 */
export function recordingCaller(app: () => TestApp, serverErrors: string[]) {
  return async (method: string, path: string, who?: { token: string } | null, json?: unknown) => {
    const res = await app().api(path, { method, headers: who ? bearer(who) : {}, ...(json !== undefined ? { json } : {}) });
    if (res.status >= 500) serverErrors.push(`${res.status} ${method} ${path}: ${JSON.stringify(res.body)}`);
    return res;
  };
}

/**
 * The next write on `db` first deletes the post `postId`: the object disappears between the check and the write. A
 * write is the next transaction, or the next statement outside one that inserts or deletes a reaction (a reaction is
 * one statement on PostgreSQL, server/reactions/reactions.repository.ts), whichever comes first.
 */
export function deletePostBeforeNextWrite(db: AppContext['db'], postId: string): void {
  const original = db.transaction;
  const executor = db.getExecutor() as unknown as { executeQuery(query: { sql: string }, ...rest: unknown[]): Promise<unknown> };
  const execute = executor.executeQuery;
  const unhook = () => {
    db.transaction = original;
    executor.executeQuery = execute;
  };
  const deletePost = () => db.deleteFrom('posts').where('id', '=', postId).execute();
  db.transaction = function (this: typeof db) {
    unhook();
    const builder = original.call(db);
    return {
      execute: async (fn: never) => {
        await deletePost();
        return builder.execute(fn);
      },
    } as unknown as ReturnType<typeof original>;
  } as typeof original;
  executor.executeQuery = async function (query, ...rest) {
    if (/(insert into|delete from) "reactions"/.test(query.sql)) {
      unhook();
      await deletePost();
    }
    return execute.call(this, query, ...rest);
  };
}
