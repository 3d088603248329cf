import type { FactoryCtx } from '../../server/seed/factories.js';
import {
  daysFromNow, entitle, linkCategory, makeCategory, makeGallery, makePhoto, makePost, makeProduct, makeVideo, subscribe, tagObject,
} from '../../server/seed/factories.js';
import { createUser } from './sessions.js';

/**
 * A small catalogue for the catalogue, paywall and EXPLAIN tests:
 *  - alice (active): free / subscriber-only / sale videos plus a draft, a processing, a scheduled and a hidden one;
 *    free / subscriber-only / sale / draft galleries; a loose photo; physical, digital and draft products.
 *  - bob (active): a free and a sale video, a free gallery, a digital product.
 *  - carol (inactive): one of each, never public.
 *  - posts and pages, categories, and the viewers: fan (nothing), subscriber (to alice), lapsed (expired
 *    subscription to alice), buyer (bought alice's sale video, sale gallery and digital product), admin.
 */
export async function buildCatalogue(ctx: FactoryCtx) {
  const { db } = ctx;
  const alice = await createUser(db, 'performer', { username: 'alice', name: 'Alice Stone', performer: { monthlyPrice: 999, subscriberCount: 50, createdAt: daysFromNow(-30) } });
  const bob = await createUser(db, 'performer', { username: 'bob', name: 'Bob Rivers', performer: { monthlyPrice: 499, subscriberCount: 80, createdAt: daysFromNow(-20) } });
  const carol = await createUser(db, 'performer', { username: 'carol', name: 'Carol Gone', performer: { status: 'inactive' } });
  const fan = await createUser(db, 'user', { username: 'fan' });
  const subscriber = await createUser(db, 'user', { username: 'subscriber' });
  const lapsed = await createUser(db, 'user', { username: 'lapsed' });
  const buyer = await createUser(db, 'user', { username: 'buyer' });
  const admin = await createUser(db, 'admin', { username: 'admin' });

  const tutorials = await makeCategory(db, 'video', 'Tutorials', { ordering: 0 });
  const vlogs = await makeCategory(db, 'video', 'Vlogs', { ordering: 1 });
  const shoots = await makeCategory(db, 'gallery', 'Shoots', { ordering: 0 });
  const merch = await makeCategory(db, 'product', 'Merch', { ordering: 0 });
  const fitness = await makeCategory(db, 'performer', 'Fitness', { ordering: 0 });
  const retired = await makeCategory(db, 'video', 'Retired', { ordering: 2, status: 'inactive' });
  await linkCategory(db, fitness.id, 'performer', alice.id);
  await tagObject(db, 'performer', alice.id, ['yoga', 'mobility']);

  const v = {
    free: await makeVideo(ctx, alice.id, { title: 'Morning flow', access: 'free', viewCount: 500, publishedAt: daysFromNow(-5), tagsList: ['yoga'] }),
    subs: await makeVideo(ctx, alice.id, { title: 'Core strength', access: 'subscribers', viewCount: 300, publishedAt: daysFromNow(-4), tagsList: ['yoga', 'core'] }),
    sale: await makeVideo(ctx, alice.id, { title: 'Full masterclass', access: 'sale', price: 1299, viewCount: 100, publishedAt: daysFromNow(-3), tagsList: ['stretch'] }),
    draft: await makeVideo(ctx, alice.id, { title: 'Draft video', status: 'draft', publishedAt: null }),
    processing: await makeVideo(ctx, alice.id, { title: 'Processing video', processingStatus: 'processing', withFiles: false }),
    scheduled: await makeVideo(ctx, alice.id, { title: 'Scheduled video', scheduledAt: daysFromNow(3), publishedAt: daysFromNow(3) }),
    hidden: await makeVideo(ctx, alice.id, { title: 'Hidden video', status: 'hidden' }),
    bobFree: await makeVideo(ctx, bob.id, { title: 'Bob free clip', access: 'free', viewCount: 1000, publishedAt: daysFromNow(-1), tagsList: ['yoga'] }),
    bobSale: await makeVideo(ctx, bob.id, { title: 'Bob sale clip', access: 'sale', price: 499, viewCount: 50, publishedAt: daysFromNow(-2) }),
    carol: await makeVideo(ctx, carol.id, { title: 'Carol clip', access: 'free' }),
  };
  await linkCategory(db, tutorials.id, 'video', v.free.id);
  await linkCategory(db, tutorials.id, 'video', v.sale.id);
  await linkCategory(db, vlogs.id, 'video', v.bobFree.id);

  const g = {
    free: await makeGallery(ctx, alice.id, { title: 'Beach day', access: 'free', photos: 3, viewCount: 40, publishedAt: daysFromNow(-6), tagsList: ['beach'] }),
    subs: await makeGallery(ctx, alice.id, { title: 'Studio', access: 'subscribers', photos: 2, viewCount: 90, publishedAt: daysFromNow(-5) }),
    sale: await makeGallery(ctx, alice.id, { title: 'Premium set', access: 'sale', price: 699, photos: 2, viewCount: 10, publishedAt: daysFromNow(-4), tagsList: ['beach'] }),
    draft: await makeGallery(ctx, alice.id, { title: 'Draft gallery', status: 'draft', photos: 1 }),
    bob: await makeGallery(ctx, bob.id, { title: 'Bob gallery', access: 'free', photos: 1 }),
    carol: await makeGallery(ctx, carol.id, { title: 'Carol gallery', access: 'free', photos: 1 }),
  };
  await linkCategory(db, shoots.id, 'gallery', g.free.id);
  const loosePhoto = await makePhoto(ctx, alice.id, { title: 'Loose photo', publishedAt: daysFromNow(-2) });

  const p = {
    physical: await makeProduct(ctx, alice.id, { name: 'Cork block', type: 'physical', price: 2400, viewCount: 20, publishedAt: daysFromNow(-3), tagsList: ['gear'] }),
    digital: await makeProduct(ctx, alice.id, { name: 'Flexibility plan', type: 'digital', price: 999, viewCount: 70, publishedAt: daysFromNow(-2), tagsList: ['plan'] }),
    draft: await makeProduct(ctx, alice.id, { name: 'Draft product', type: 'digital', status: 'draft', publishedAt: null }),
    bobDigital: await makeProduct(ctx, bob.id, { name: 'Bob ebook', type: 'digital', price: 599, publishedAt: daysFromNow(-1) }),
    carol: await makeProduct(ctx, carol.id, { name: 'Carol mug', type: 'physical' }),
  };
  await linkCategory(db, merch.id, 'product', p.physical.id);

  const posts = {
    older: await makePost(ctx, { title: 'Welcome', publishedAt: daysFromNow(-3), likeCount: 10 }),
    newer: await makePost(ctx, { title: 'News of the week', publishedAt: daysFromNow(-1), likeCount: 2 }),
    byAlice: await makePost(ctx, { title: 'Alice writes', performerId: alice.id, publishedAt: daysFromNow(-2) }),
    byCarol: await makePost(ctx, { title: 'Carol writes', performerId: carol.id }),
    draft: await makePost(ctx, { title: 'Draft post', status: 'draft' }),
    future: await makePost(ctx, { title: 'Future post', publishedAt: daysFromNow(2) }),
    page: await makePost(ctx, { title: 'Terms', type: 'page', slug: 'terms-of-service', publishedAt: daysFromNow(-100) }),
  };

  await subscribe(db, subscriber.id, alice.id);
  await subscribe(db, lapsed.id, alice.id, { expiresAt: daysFromNow(-1) });
  await entitle(db, buyer.id, 'video', v.sale.id);
  await entitle(db, buyer.id, 'gallery', g.sale.id);
  await entitle(db, buyer.id, 'product', p.digital.id);

  return {
    alice, bob, carol, fan, subscriber, lapsed, buyer, admin,
    categories: { tutorials, vlogs, shoots, merch, fitness, retired },
    videos: v, galleries: g, loosePhoto, products: p, posts,
  };
}

export type Catalogue = Awaited<ReturnType<typeof buildCatalogue>>;
