// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProductItem } from '../../common/schemas/catalogue.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { toasts } from '../../src/lib/stores/toast.js';
import type { StudioPost, StudioVideo } from '../../common/schemas/studio.js';
import DownloadButton from '../../src/islands/DownloadButton.js';
import StudioProducts from '../../src/islands/studio/StudioProducts.js';
import StudioVideos from '../../src/islands/studio/StudioVideos.js';
import StudioPosts from '../../src/islands/studio/StudioPosts.js';
import { reply, stubFetch } from './client-helpers.js';

const navigate = vi.fn();
beforeEach(() => {
  navigate.mockReset();
  setNavigator(navigate);
  resetAll();
});
afterEach(() => {
  cleanup();
  setNavigator();
  vi.unstubAllGlobals();
});

describe('DownloadButton', () => {
  it('fetches the signed link through the API client and goes there', async () => {
    const { calls } = stubFetch({
      'GET /api/user/assets/products/p1/download-link': reply(200, { downloadLink: '/media/protected/product/p1/f1?u=u&e=1&s=x', expiresAt: '2030-01-01T00:00:00Z', fileName: 'guide.pdf' }),
    });
    render(<DownloadButton productId="p1" />);
    fireEvent.click(screen.getByTestId('product-download'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/media/protected/product/p1/f1?u=u&e=1&s=x'));
    expect(calls).toHaveLength(1);
  });

  it('shows the server message and stays put on 403', async () => {
    stubFetch({ 'GET /api/user/assets/products/p1/download-link': reply(403, { message: 'Buy this product to download it', code: 'FORBIDDEN' }) });
    render(<DownloadButton productId="p1" />);
    fireEvent.click(screen.getByTestId('product-download'));
    await waitFor(() => expect(toasts.get().map((t) => t.message)).toContain('Buy this product to download it'));
    expect(navigate).not.toHaveBeenCalled();
  });
});

describe('studio inline editors', () => {
  const product: ProductItem = {
    _id: 'p1', slug: 'mug', name: 'Mug', description: 'A mug', performerId: 'perf', performer: null, type: 'physical', price: 1500, stock: 3, image: null, locked: false,
    tags: [], status: 'active', publishedAt: null, createdAt: '2026-01-01T00:00:00.000Z', stats: { views: 0, likes: 0, favourites: 0, comments: 0 } as ProductItem['stats'],
  };

  it('a product: sends only what changed (price in minor units, stock) and shows the result', async () => {
    const { calls } = stubFetch({
      'PUT /api/performer/assets/products/p1': (c) => reply(200, { ...product, imageUrl: null, imageStatus: 'none', digitalFile: null, categoryIds: [], updatedAt: 'x', ...(c.body as object) }),
    });
    render(<StudioProducts initial={{ items: [product], total: 1 }} currencySymbol="$" />);
    fireEvent.click(screen.getByTestId('product-edit'));
    expect((screen.getByTestId('edit-price') as HTMLInputElement).value).toBe('15.00');
    fireEvent.input(screen.getByTestId('edit-price'), { target: { value: '19.99' } });
    fireEvent.input(screen.getByTestId('edit-stock'), { target: { value: '7' } });
    fireEvent.click(screen.getByTestId('edit-save'));
    await waitFor(() => expect(screen.queryByTestId('item-editor')).toBeNull());
    expect(calls[0]!.body).toEqual({ price: 1999, stock: 7 });
    expect(screen.getByTestId('studio-product').textContent).toContain('$19.99');
  });

  it('a video: turning it into a sale needs a price; the server\'s field errors show', async () => {
    const video: StudioVideo = {
      _id: 'v1', title: 'Clip', slug: 'clip', description: null, visibility: 'subscribers', price: 0, tags: ['a'], categoryIds: [], status: 'active', processingStatus: 'ready',
      processingError: null, duration: 3, thumbnailUrl: null, posterUrl: null, teaserUrl: null, scheduledAt: null, publishedAt: '2026-01-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const { calls: all } = stubFetch({
      // The editor's "People in this" loads the item's co-performers when it opens.
      'GET /api/performer/co-performers/video/v1': reply(200, { items: [], publishable: true }),
      'PUT /api/performer/assets/videos/v1': (c) =>
        (c.body as { title?: string }).title === ''
          ? reply(400, { message: 'Validation failed', code: 'VALIDATION_FAILED', details: [{ path: 'body.title', message: 'Title cannot be empty' }] })
          : reply(200, { ...video, ...(c.body as object), visibility: 'sale' }),
    });
    const puts = () => all.filter((c) => c.method === 'PUT');
    render(<StudioVideos initial={{ items: [video], total: 1 }} currencySymbol="$" />);
    fireEvent.click(screen.getByTestId('video-edit'));
    fireEvent.change(screen.getByTestId('edit-visibility'), { target: { value: 'sale' } });
    fireEvent.click(screen.getByTestId('edit-save'));
    expect(await screen.findByText('Enter a sale price')).toBeTruthy();
    expect(puts()).toHaveLength(0);
    fireEvent.input(screen.getByTestId('edit-title'), { target: { value: '' } });
    fireEvent.input(screen.getByTestId('edit-price'), { target: { value: '4.99' } });
    fireEvent.click(screen.getByTestId('edit-save'));
    expect(await screen.findByText('Title cannot be empty')).toBeTruthy();
    fireEvent.input(screen.getByTestId('edit-title'), { target: { value: 'Clip two' } });
    fireEvent.click(screen.getByTestId('edit-save'));
    await waitFor(() => expect(screen.queryByTestId('item-editor')).toBeNull());
    expect(puts()[1]!.body).toEqual({ title: 'Clip two', visibility: 'sale', price: 499 });
    expect(screen.getByTestId('studio-video').textContent).toContain('Clip two');
  });

  it('a post: an empty "new text" keeps the content; a cleared publish date is sent as null', async () => {
    const post: StudioPost = {
      _id: 'po1', title: 'Hello', slug: 'hello', excerpt: 'Hi', content: '<p>Hello</p>', status: 'published', visibility: 'free', price: 0, media: [], imageUrl: null,
      imageStatus: 'none', publishedAt: '2026-01-01T10:00:00.000Z', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const { calls: all } = stubFetch({
      'GET /api/performer/co-performers/post/po1': reply(200, { items: [], publishable: true }),
      'PUT /api/performer/assets/posts/po1': (c) => reply(200, { ...post, ...(c.body as object) }),
    });
    const puts = () => all.filter((c) => c.method === 'PUT');
    render(<StudioPosts initial={{ items: [post], total: 1 }} />);
    fireEvent.click(screen.getByTestId('post-edit'));
    fireEvent.input(screen.getByTestId('edit-excerpt'), { target: { value: 'Hi there' } });
    fireEvent.input(screen.getByTestId('edit-publishedAt'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('edit-save'));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]!.body).toEqual({ excerpt: 'Hi there', publishedAt: null });
  });
});
