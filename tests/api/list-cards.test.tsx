import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderToString } from 'react-dom/server';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { cardPage } from '../../src/server/list-cards.js';
import type { ListKind } from '../../src/islands/LoadMoreList.tsx';
import { GalleryCardView, PerformerCardItem, PhotoCardView, PostCardView, ProductCardView, VideoCardView } from '../../src/islands/catalogue/cards.tsx';

/**
 * A list island's first page is cut to its cards' fields (src/server/list-cards.ts) before Astro serialises it
 * into the page. Cut and full items (as the API answers them, to a guest and to a buyer whose photos are
 * unlocked) must render the same card: the cut never loses anything a card shows.
 */
const card = (kind: ListKind, item: any) => {
  switch (kind) {
    case 'videos': return <VideoCardView item={item} symbol="$" />;
    case 'galleries': return <GalleryCardView item={item} symbol="$" />;
    case 'products': return <ProductCardView item={item} symbol="$" />;
    case 'photos':
    case 'galleryPhotos': return <PhotoCardView item={item} symbol="$" />;
    case 'posts': return <PostCardView item={item} symbol="$" />;
    case 'performers': return <PerformerCardItem item={item} symbol="$" />;
  }
};

describe('list island first pages cut to the cards', () => {
  let t: TestApp;
  let c: Catalogue;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    c = await buildCatalogue(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  const lists = (): Array<[ListKind, string]> => [
    ['videos', '/user/assets/videos/search'],
    ['galleries', '/user/assets/galleries/search'],
    ['products', '/user/assets/products/search'],
    ['photos', `/user/assets/photos?performerId=${c.alice.id}`],
    ['galleryPhotos', `/user/assets/gallery/${c.galleries.sale.id}/photos`],
    ['posts', '/posts/search'],
    ['performers', '/performers/search'],
  ];

  it.each(['guest', 'buyer'] as const)('render the same cards as full items, for a %s', async (who) => {
    const headers = who === 'buyer' ? c.buyer.headers : undefined;
    let unlockedPhotos = 0;
    for (const [kind, path] of lists()) {
      const res = await t.api(path, { headers });
      expect(res.status, path).toBe(200);
      const full = res.body;
      expect(full.items.length, path).toBeGreaterThan(0);
      const cut = cardPage(kind, full);
      expect(cut.total).toBe(full.total);
      expect(cut.nextCursor).toBe(full.nextCursor ?? null);
      for (const [i, item] of full.items.entries()) {
        const small = cut.items[i]!;
        expect(JSON.stringify(small).length, `${kind} item is smaller`).toBeLessThan(JSON.stringify(item).length);
        expect(renderToString(card(kind, small)), `${kind} ${item._id}`).toBe(renderToString(card(kind, item)));
        if ((kind === 'photos' || kind === 'galleryPhotos') && item.photo) unlockedPhotos++;
      }
    }
    // The buyer's sale-gallery photos are unlocked: their cards link the full photo, which the cut must keep.
    if (who === 'buyer') expect(unlockedPhotos).toBeGreaterThan(0);
  });
});
